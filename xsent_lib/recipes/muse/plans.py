"""Chapter 5's sizes per profile (MUSE, thesis section 4.1): the word spaces, the unsupervised
pipeline and
the isomorphism dial of ``smoke``, ``book``, ``gpu`` and ``full``, and the work each one trains.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.vecmap import VecMapConfig
from xsent_lib.eval.dial import DialConfig

SYNTHETIC_PAIRS = (("en", "xa"), ("en", "xe"), ("en", "xb"), ("en", "xd"))
REAL_PAIRS = (("en", "de"), ("en", "fr"), ("en", "es"), ("en", "ru"))


# -- the profiles ----------------------------------------------------------------------------------

#: the real dial's points: same language and domain; same language, other domain; other language,
#: same domain; other language and domain (names of
#: :data:`xsent_lib.data.dial_corpora.REAL_DIAL_CORPORA`)
REAL_DIAL_POINTS = (("en news", "en news (other half)"), ("en news", "en books"),
                    ("en news", "fr news (other half)"), ("en news", "fr help"))

_DIAL_ADV = AdversarialConfig(dis_hidden=256, batch_size=128, dis_steps=2, epoch_size=128 * 100,
                              n_epochs=3, most_frequent=2000, criterion_words=1000)
_DIAL_VECMAP = VecMapConfig(init_words=1000, vocab=2000, interval=5, max_iter=80)
DIALS = {
    "smoke": DialConfig(pairs=(("en", "en"), ("en", "xa")), size_pairs=(("en", "en"),),
                        sentences=(2000, 4000), seeds=(0,), dim=16,
                        adv=replace(_DIAL_ADV, epoch_size=128 * 10, n_epochs=1),
                        vecmap=replace(_DIAL_VECMAP, max_iter=10), restarts=1, refine_iters=1,
                        max_rank=1000, real_points=REAL_DIAL_POINTS[:1], real_sentences=(1000,),
                        real_adversarial=False),
    "book": DialConfig(pairs=(("en", "en"), ("xb", "xd"), ("en", "xe"), ("en", "xa"), ("en", "xb")),
                       size_pairs=(("en", "en"), ("en", "xa")), sentences=(5000, 20_000),
                       seeds=(0, 1), dim=50, adv=_DIAL_ADV, vecmap=_DIAL_VECMAP, restarts=1,
                       refine_iters=2, max_rank=2000, real_points=REAL_DIAL_POINTS[:2],
                       real_sentences=(45_000,), real_adversarial=False),
    "full": DialConfig(pairs=(("en", "en"), ("xb", "xd"), ("en", "xe"), ("xa", "xc"), ("en", "xa"),
                              ("en", "xd"), ("en", "xb"), ("xa", "xb")),
                       size_pairs=(("en", "en"), ("en", "xe"), ("en", "xa"), ("en", "xb")),
                       sentences=(5000, 20_000, 80_000), seeds=(0, 1, 2), dim=50,
                       adv=replace(_DIAL_ADV, epoch_size=128 * 400, n_epochs=5),
                       vecmap=replace(_DIAL_VECMAP, max_iter=300), restarts=3, refine_iters=3,
                       max_rank=2000, real_points=REAL_DIAL_POINTS,
                       real_sentences=(5000, 10_000, 25_000, 45_000), real_seeds=(0, 1, 2)),
}
#: book's corpora (gensim trains them on the host CPU), full's pairs and seeds, the real points run
#: adversarially
DIALS["gpu"] = replace(DIALS["book"], pairs=DIALS["full"].pairs, seeds=(0, 1, 2), refine_iters=3,
                       adv=replace(_DIAL_ADV, epoch_size=128 * 200), real_points=REAL_DIAL_POINTS,
                       vecmap=replace(_DIAL_VECMAP, max_iter=150), real_adversarial=True)


@dataclass(frozen=True, kw_only=True)
class MuseProfile:
    """The sizes of one run of chapter 5 (the thesis values are the ``full`` profile's).

    ``dim``/``max_vocab``/``n_sentences``: word spaces; ``pairs``/``restarts``/``adv``: the
    unsupervised pipeline (restarts per pair, adversarial settings);
    ``refine_iters``/``max_rank``/``align_vocab``: refinement and the frequency cut-off;
    ``n_eval_sents``/``n_idf_sents``: Table 4.3; ``n_bleu``: Table 4.5;
    ``toy_points``/``toy_restarts``: Figure 4.1; ``basin_angles``: the refinement basin;
    ``en_sentences``: Figure 4.3's synthetic English (``None``: ``n_sentences``); ``dial``: the
    isomorphism dial's grid; ``vecmap``: VecMap's robust initialisation on the chapter's pairs.
    Book: chapter 5 (Word translation without parallel data).
    """

    dim: int
    max_vocab: int | None
    n_sentences: int
    pairs: tuple[tuple[str, str], ...]
    restarts: int
    adv: AdversarialConfig
    refine_iters: int
    max_rank: int
    align_vocab: int | None
    n_eval_sents: int
    n_idf_sents: int
    n_bleu: int
    toy_points: int
    toy_restarts: int
    basin_angles: tuple[float, ...]
    en_sentences: int | None
    dial: DialConfig
    vecmap: VecMapConfig


PROFILES = {
    "smoke": MuseProfile(dim=16, max_vocab=None, n_sentences=3000, pairs=SYNTHETIC_PAIRS[:2],
                         restarts=2,
                         adv=AdversarialConfig(dis_hidden=32, batch_size=32, dis_steps=1,
                                               epoch_size=32 * 20, n_epochs=2, most_frequent=1000,
                                               criterion_words=500),
                         refine_iters=1, max_rank=1000, align_vocab=None, n_eval_sents=300,
                         n_idf_sents=1000, n_bleu=200, toy_points=120, toy_restarts=2,
                         basin_angles=(30, 90), en_sentences=3000, dial=DIALS["smoke"],
                         vecmap=VecMapConfig(init_words=500, vocab=1000, interval=2, max_iter=10)),
    "book": MuseProfile(dim=100, max_vocab=20_000, n_sentences=20_000, pairs=REAL_PAIRS, restarts=2,
                        adv=AdversarialConfig(dis_hidden=256, batch_size=128, dis_steps=2,
                                              epoch_size=128 * 200, n_epochs=3,
                                              most_frequent=10_000, criterion_words=5_000),
                        refine_iters=2, max_rank=10_000, align_vocab=10_000, n_eval_sents=5_000,
                        n_idf_sents=50_000, n_bleu=2_000, toy_points=300, toy_restarts=6,
                        basin_angles=(30, 60, 75, 90), en_sentences=None, dial=DIALS["book"],
                        vecmap=VecMapConfig(init_words=2000, vocab=4000, interval=3, threshold=1e-3,
                                            max_iter=25)),
    "full": MuseProfile(dim=300, max_vocab=200_000, n_sentences=200_000, pairs=REAL_PAIRS,
                        restarts=5,
                        adv=AdversarialConfig(),  # the thesis values
                        refine_iters=5, max_rank=15_000, align_vocab=None, n_eval_sents=20_000,
                        n_idf_sents=80_000, n_bleu=10_000, toy_points=300, toy_restarts=10,
                        basin_angles=(15, 30, 45, 60, 75, 90, 120), en_sentences=None,
                        dial=DIALS["full"],
                        vecmap=VecMapConfig()),  # the released code's values
}
#: book's word spaces (gensim, host CPU); the GPU takes what the thesis scales: a wider
#: discriminator, a
#: longer game, more restarts and refinement, the whole vocabulary, more basin and toy, the dial's
#: grid
PROFILES["gpu"] = replace(
    PROFILES["book"], restarts=3, refine_iters=4, max_rank=15_000, align_vocab=None,
    toy_restarts=10,
    adv=replace(PROFILES["book"].adv, dis_hidden=1024, dis_steps=3, epoch_size=128 * 250,
                most_frequent=20_000, criterion_words=10_000),
    basin_angles=(15, 30, 45, 60, 75, 90, 120), dial=DIALS["gpu"],
    vecmap=VecMapConfig(init_words=4000, vocab=10_000, interval=3, threshold=1e-3, max_iter=60))
PROFILES = {name: PROFILES[name] for name in ("smoke", "book", "gpu", "full")}


#: what :func:`work` counts
WORK_UNIT = "adversarial work (samples x discriminator steps x hidden width^2, summed over runs)"


def work(profile: MuseProfile) -> float:
    """The profile's adversarial games (both directions of each pair, every restart, and the
    dial's) in
    :data:`WORK_UNIT`; gensim's CPU training, refinement and CSLS are not counted.
    Book: chapter 5 (Word translation without parallel data).
    """
    dial = profile.dial
    runs = len(dial.pairs) * len(dial.seeds)
    if dial.real_adversarial:
        runs += len(dial.real_points) * len(dial.real_seeds)
    pipeline = 2 * len(profile.pairs) * profile.restarts * profile.adv.work
    return pipeline + runs * dial.restarts * dial.adv.work
