"""Chapter 5's experiment plan (MUSE, thesis section 4.1): profiles, settings, and the paper's claims as data.

The methods live in the library's layers: word spaces in :mod:`xsent_lib.data.word_spaces`, the
dictionaries' sources in :mod:`xsent_lib.data.word_dictionaries`, settings in
:mod:`xsent_lib.align.setting`, the supervised and unsupervised pipelines in
:mod:`xsent_lib.align.pipeline` (Figure 4.1's toy in :mod:`xsent_lib.align.toy_run`), retrieval scores,
hubness and word-by-word translation in :mod:`xsent_lib.eval.word_maps` and
:mod:`xsent_lib.eval.hubness`, idf-weighted bags of words in :mod:`xsent_lib.encoders.idf_bag`. This
module holds what is the chapter's own: the sizes of each profile (:data:`PROFILES`), which data each
run uses (:func:`build_settings`), the flat numbers the claims read (:func:`claim_numbers`) and the
claims themselves (:func:`muse_claims`), checked by :func:`xsent_lib.results.claims.check_claims`.

Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.setting import (WordTranslationSetting, make_setting, synthetic_pair_setting, synthetic_side_space,
                                     text_pair_setting, text_side_space)
from xsent_lib.align.vecmap import VecMapConfig
from xsent_lib.base.parallel import parallel_map
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_dictionaries import freedict_pairs
from xsent_lib.data.word_spaces import (
    LanguageSpace,
    language_seed,
    make_space,
    real_space,
    synthetic_space,
    typological_distance,
)
from xsent_lib.eval.word_maps import compare_aligners
from xsent_lib.results.claims import Claim, PaperCell, Weaker
from xsent_lib.results.paper import paper_table

SYNTHETIC_PAIRS = (("en", "xa"), ("en", "xe"), ("en", "xb"), ("en", "xd"))
REAL_PAIRS = (("en", "de"), ("en", "fr"), ("en", "es"), ("en", "ru"))


# -- the profiles ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DialProfile:
    """The isomorphism dial's grid: synthetic language pairs by typological distance, corpus sizes, seeds.

    ``pairs`` are aligned at the largest of ``sentences`` (the distance axis); ``size_pairs`` at every
    size (the corpus-size axis); each point with every seed of ``seeds`` (the seed of the unsupervised
    methods; the corpora and spaces stay fixed). ``dim``: word-vector size; ``adv``, ``restarts``,
    ``refine_iters``, ``max_rank``: MUSE's pipeline; ``vecmap``: the robust initialisation. ``real_points``:
    pairs of :data:`REAL_DIAL_CORPORA` names aligned at every size of ``real_sentences`` (the dial on real
    text: same or other language, same or other domain), each with every seed of ``real_seeds``; ``real_adversarial=False``
    leaves MUSE's adversarial pipeline out of them (it costs most of a point's time and fails on real pairs
    at every size the book reaches) and compares VecMap with Procrustes.
    Book: chapter 5 (Word translation without parallel data).
    """

    pairs: tuple[tuple[str, str], ...]
    size_pairs: tuple[tuple[str, str], ...]
    sentences: tuple[int, ...]
    seeds: tuple[int, ...]
    dim: int
    adv: AdversarialConfig
    vecmap: VecMapConfig
    restarts: int
    refine_iters: int
    max_rank: int
    real_points: tuple[tuple[str, str], ...] = ()
    real_sentences: tuple[int, ...] = ()
    real_adversarial: bool = True
    real_seeds: tuple[int, ...] = (0,)


#: the dial's real corpora: language, registry texts ``(dataset, side)``, and which part of their lines is
#: drawn from. nlp-corpus's English is the source of its French translations, so its English and French come
#: from disjoint halves (comparable text on the same topics, never a sentence and its translation).
REAL_DIAL_CORPORA: dict[str, tuple[str, tuple[tuple[str, str], ...], str]] = {
    "en news": ("en", (("nlp-en-fr", "src"),), "first half"),
    "en news (other half)": ("en", (("nlp-en-fr", "src"),), "second half"),
    "en books": ("en", (("brown", "text"), ("fortunes-en", "text"), ("bible-en-es", "src")), "all"),
    "fr news (other half)": ("fr", (("nlp-en-fr", "tgt"),), "second half"),
    "fr help": ("fr", (("lohelp-en-fr", "tgt"),), "all"),
}
#: same language and domain; same language, other domain; other language, same domain; other language and domain
REAL_DIAL_POINTS = (("en news", "en news (other half)"), ("en news", "en books"),
                    ("en news", "fr news (other half)"), ("en news", "fr help"))

_DIAL_ADV = AdversarialConfig(dis_hidden=256, batch_size=128, dis_steps=2, epoch_size=128 * 100, n_epochs=3,
                              most_frequent=2000, criterion_words=1000)
_DIAL_VECMAP = VecMapConfig(init_words=1000, vocab=2000, interval=5, max_iter=80)
DIALS = {
    "smoke": DialProfile(pairs=(("en", "en"), ("en", "xa")), size_pairs=(("en", "en"),), sentences=(2000, 4000),
                         seeds=(0,), dim=16, adv=replace(_DIAL_ADV, epoch_size=128 * 10, n_epochs=1),
                         vecmap=replace(_DIAL_VECMAP, max_iter=10), restarts=1, refine_iters=1, max_rank=1000,
                         real_points=REAL_DIAL_POINTS[:1], real_sentences=(1000,), real_adversarial=False),
    "book": DialProfile(pairs=(("en", "en"), ("xb", "xd"), ("en", "xe"), ("en", "xa"), ("en", "xb")),
                        size_pairs=(("en", "en"), ("en", "xa")), sentences=(5000, 20_000), seeds=(0, 1), dim=50,
                        adv=_DIAL_ADV, vecmap=_DIAL_VECMAP, restarts=1, refine_iters=2, max_rank=2000,
                        real_points=REAL_DIAL_POINTS[:2], real_sentences=(45_000,), real_adversarial=False),
    "full": DialProfile(pairs=(("en", "en"), ("xb", "xd"), ("en", "xe"), ("xa", "xc"), ("en", "xa"),
                               ("en", "xd"), ("en", "xb"), ("xa", "xb")),
                        size_pairs=(("en", "en"), ("en", "xe"), ("en", "xa"), ("en", "xb")),
                        sentences=(5000, 20_000, 80_000), seeds=(0, 1, 2), dim=50,
                        adv=replace(_DIAL_ADV, epoch_size=128 * 400, n_epochs=5), vecmap=replace(_DIAL_VECMAP,
                                                                                              max_iter=300),
                        restarts=3, refine_iters=3, max_rank=2000, real_points=REAL_DIAL_POINTS,
                        real_sentences=(5000, 10_000, 25_000, 45_000), real_seeds=(0, 1, 2)),
}

@dataclass(frozen=True)
class MuseProfile:
    """The sizes of one run of chapter 5 (the thesis values are the ``full`` profile's).

    ``dim``/``max_vocab``/``n_sentences``: word spaces; ``pairs``/``restarts``/``adv``: the unsupervised
    pipeline (restarts per pair, adversarial settings); ``refine_iters``/``max_rank``/``align_vocab``:
    refinement and the frequency cut-off; ``n_eval_sents``/``n_idf_sents``: Table 4.3; ``n_bleu``: Table
    4.5; ``toy_points``/``toy_restarts``: Figure 4.1; ``basin_angles``: the refinement basin;
    ``en_sentences``: Figure 4.3's synthetic English (``None``: ``n_sentences``); ``dial``: the isomorphism
    dial's grid; ``vecmap``: VecMap's robust initialisation on the chapter's pairs.
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
    dial: DialProfile
    vecmap: VecMapConfig


PROFILES = {
    "smoke": MuseProfile(dim=16, max_vocab=None, n_sentences=3000, pairs=SYNTHETIC_PAIRS[:2], restarts=2,
                         adv=AdversarialConfig(dis_hidden=32, batch_size=32, dis_steps=1, epoch_size=32 * 20,
                                               n_epochs=2, most_frequent=1000, criterion_words=500),
                         refine_iters=1, max_rank=1000, align_vocab=None, n_eval_sents=300, n_idf_sents=1000,
                         n_bleu=200, toy_points=120, toy_restarts=2, basin_angles=(30, 90), en_sentences=3000,
                         dial=DIALS["smoke"], vecmap=VecMapConfig(init_words=500, vocab=1000, interval=2,
                                                                  max_iter=10)),
    "book": MuseProfile(dim=100, max_vocab=20_000, n_sentences=20_000, pairs=REAL_PAIRS, restarts=2,
                        adv=AdversarialConfig(dis_hidden=256, batch_size=128, dis_steps=2, epoch_size=128 * 200,
                                              n_epochs=3, most_frequent=10_000, criterion_words=5_000),
                        refine_iters=2, max_rank=10_000, align_vocab=10_000, n_eval_sents=5_000,
                        n_idf_sents=50_000, n_bleu=2_000, toy_points=300, toy_restarts=6,
                        basin_angles=(30, 60, 75, 90), en_sentences=None, dial=DIALS["book"],
                        vecmap=VecMapConfig(init_words=2000, vocab=4000, interval=3, threshold=1e-3,
                                            max_iter=25)),
    "full": MuseProfile(dim=300, max_vocab=200_000, n_sentences=200_000, pairs=REAL_PAIRS, restarts=5,
                        adv=AdversarialConfig(),  # the thesis values
                        refine_iters=5, max_rank=15_000, align_vocab=None, n_eval_sents=20_000,
                        n_idf_sents=80_000, n_bleu=10_000, toy_points=300, toy_restarts=10,
                        basin_angles=(15, 30, 45, 60, 75, 90, 120), en_sentences=None, dial=DIALS["full"],
                        vecmap=VecMapConfig()),  # the released code's values
}


# -- the chapter's settings, whatever the data ----------------------------------------------------------------

def build_settings(source: str, pairs: Sequence[tuple[str, str]], *, dim: int = 100, max_vocab: int | None = 20_000,
                   seed: int = 0, n_train: int | None = 5000, n_test: int | None = 1500,
                   world: SyntheticWorld | None = None,
                   n_sentences: int = 20_000, data_dir: str | os.PathLike[str] | None = None,
                   cache_dir: str | os.PathLike[str] | None = None) -> dict[str, WordTranslationSetting]:
    """Both directions of every pair as settings, keyed ``"src-tgt"``; each language's space is built once.

    ``source``: ``"real"`` (our skip-gram vectors on the cached text, FreeDict dictionaries),
    ``"synthetic"`` (vectors on ``world``'s sentences, gold lexicons) or ``"fasttext"`` (MUSE's own
    setting from ``data_dir``, see :func:`fasttext_files`: 300-d Wikipedia vectors, MUSE dictionaries
    trained on ``0-5000`` and tested on ``5000-6500``).
    Book: chapter 5 (Word translation without parallel data).
    """
    if source not in ("real", "synthetic", "fasttext"):
        raise ValueError(f"source must be 'real', 'synthetic' or 'fasttext', got {source!r}.")
    if source == "synthetic" and world is None:
        raise ValueError("source='synthetic' needs world=SyntheticWorld(...).")
    langs = list(dict.fromkeys(lang for p in pairs for lang in p))
    spaces: dict[str, LanguageSpace] = {}
    if source == "real":  # each language's vectors train on one core, side by side (parallel_map)
        jobs = [{"lang": lang, "dim": dim, "max_vocab": max_vocab, "seed": language_seed(lang, seed),
                 "cache_dir": cache_dir} for lang in langs]
        spaces = dict(zip(langs, parallel_map(real_space, jobs)))
    elif source == "synthetic":
        jobs = [{"world": world, "lang": lang, "n_sentences": n_sentences, "dim": dim,
                 "seed": language_seed(lang, seed), "cache_dir": cache_dir} for lang in langs]
        spaces = dict(zip(langs, parallel_map(synthetic_space, jobs)))
    else:
        from pathlib import Path

        from xsent_lib.data.formats import load_vec

        for lang in langs:
            wv = load_vec(Path(data_dir) / f"wiki.{lang}.vec", max_words=max_vocab)
            spaces[lang] = make_space(lang, wv.words, wv.vectors)
    out = {}
    for s, t in pairs:
        for a, b in ((s, t), (t, s)):
            if source == "real":
                train, test, name = freedict_pairs(a, b, cache_dir=cache_dir)
            elif source == "synthetic":
                lex = world.lexicon(a, b)
                train, test, name = lex.train, lex.test, f"synthetic gold lexicon {a}-{b}"
            else:
                from xsent_lib.data.formats import load_muse_dictionary

                tr = load_muse_dictionary(data_dir, a, b, "0-5000")
                te = load_muse_dictionary(data_dir, a, b, "5000-6500")
                train, test = list(zip(tr.source, tr.target)), list(zip(te.source, te.target))
                name = f"MUSE {a}-{b}"
            out[f"{a}-{b}"] = make_setting(spaces[a], spaces[b], train, test, dictionary=name, n_train=n_train,
                                           n_test=n_test, seed=seed)
    return out


# -- the isomorphism dial ---------------------------------------------------------------------------------------

def dial_points(dial: DialProfile) -> list[tuple[str, str, int]]:
    """The dial's ``(src, tgt, n_sentences)`` points: every pair at the largest size, ``size_pairs`` at all.

    Book: chapter 5 (Word translation without parallel data).
    """
    largest = max(dial.sentences)
    points = [(a, b, largest) for a, b in dial.pairs]
    points += [(a, b, n) for a, b in dial.size_pairs for n in sorted(dial.sentences) if n != largest]
    return list(dict.fromkeys(points))


def run_dial(world: SyntheticWorld, dial: DialProfile, *, device: str = "cpu",
             cache_dir: str | os.PathLike[str] | None = None) -> list[dict]:
    """Supervised and unsupervised P@1 at every dial point and seed (:func:`compare_aligners`' rows).

    Each row adds ``distance`` (:func:`typological_distance`) and ``n_sentences``.
    Book: chapter 5 (Word translation without parallel data).
    """
    points = dial_points(dial)
    sides = dict.fromkeys((lang, split, n) for a, b, n in points for lang, split in ((a, "train"), (b, "dev")))
    parallel_map(synthetic_side_space, [{"world": world, "lang": lang, "split": split, "n_sentences": n,
                                         "dim": dial.dim, "cache_dir": cache_dir} for lang, split, n in sides])
    settings = [synthetic_pair_setting(world, a, b, n_sentences=n, dim=dial.dim, cache_dir=cache_dir)
                for a, b, n in points]  # loaded from the cache the line above filled
    keys = [(i, seed) for i in range(len(points)) for seed in dial.seeds]
    results = parallel_map(compare_aligners, [_aligners_job(settings[i], dial, seed, device) for i, seed in keys],
                           device=device)
    return [{"distance": typological_distance(points[i][0], points[i][1]), "n_sentences": points[i][2], **res}
            for (i, _), res in zip(keys, results)]


def _aligners_job(setting: WordTranslationSetting, dial: DialProfile, seed: int, device: str,
                  adversarial: bool = True) -> dict:
    """The keyword arguments of one :func:`compare_aligners` call of the dial."""
    return {"setting": setting, "adv_config": dial.adv, "vecmap_config": dial.vecmap, "n_restarts": dial.restarts,
            "refine_iters": dial.refine_iters, "max_rank": dial.max_rank, "seed": seed, "device": device,
            "adversarial": adversarial}


def _real_dial_lines(name: str, cache_dir: str | os.PathLike[str] | None) -> list[str]:
    """The lines that dial corpus ``name`` draws from (its part of its texts)."""
    from xsent_lib.data.corpora import load_monolingual

    if name not in REAL_DIAL_CORPORA:
        raise ValueError(f"unknown dial corpus {name!r}; known: {sorted(REAL_DIAL_CORPORA)}.")
    lang, sources, part = REAL_DIAL_CORPORA[name]
    lines = load_monolingual(lang, sources, cache_dir=cache_dir)
    half = len(lines) // 2
    return {"first half": lines[:half], "second half": lines[half:], "all": lines}[part]


def real_dial_size(name: str, cache_dir: str | os.PathLike[str] | None = None) -> int:
    """How many lines dial corpus ``name`` can draw from.

    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    return len(_real_dial_lines(name, cache_dir))


def real_dial_text(name: str, n_sentences: int, seed: int = 0,
                   cache_dir: str | os.PathLike[str] | None = None) -> list[str]:
    """``n_sentences`` lines of the dial corpus ``name`` (:data:`REAL_DIAL_CORPORA`), drawn at random without
    replacement (``seed``) from its part of the texts, so a small corpus covers the same range of documents as
    a large one. Raises ValueError when the corpus has fewer lines, FileNotFoundError when it is not cached.
    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    lines = _real_dial_lines(name, cache_dir)
    if n_sentences > len(lines):
        raise ValueError(f"{name} has {len(lines)} lines, fewer than the {n_sentences} asked for.")
    keep = np.sort(np.random.default_rng(seed).choice(len(lines), size=n_sentences, replace=False))
    return [lines[i] for i in keep]


def run_real_dial(dial: DialProfile, *, device: str = "cpu",
                  cache_dir: str | os.PathLike[str] | None = None) -> list[dict]:
    """The dial on real text: supervised and unsupervised P@1 (:func:`compare_aligners`' rows) for every pair of
    ``dial.real_points`` at every size of ``dial.real_sentences`` and every seed of ``dial.seeds``.

    Two corpora of one language are scored on identity over their frequent shared words; English-French on the
    FreeDict dictionary. Each row adds ``point`` (``"src / tgt"``), ``same language``, ``same domain`` (the
    nlp-corpus halves are one domain, every other pairing is not) and ``n_sentences``. A size larger than a
    corpus of the point is skipped with a printed note.
    Book: chapter 5 (Word translation without parallel data: the isomorphism dial on real corpora).
    """
    todo = []  # (a, b, n, texts, setting keywords) of every point and size the corpora can give
    for a, b in dial.real_points:
        lang_a, lang_b = REAL_DIAL_CORPORA[a][0], REAL_DIAL_CORPORA[b][0]
        if lang_a == lang_b:
            kw: dict = {"dictionary": f"identity on shared {lang_a} words"}
        else:
            train, test, name = freedict_pairs(lang_a, lang_b, cache_dir=cache_dir)
            kw = {"train_pairs": train, "test_pairs": test, "dictionary": name}
        for n in dial.real_sentences:
            short = [c for c in (a, b) if n > real_dial_size(c, cache_dir)]
            if short:
                print(f"NOTE: real dial {a} / {b} skips {n:,} sentences: {', '.join(short)} holds fewer lines.")
                continue
            texts = (real_dial_text(a, n, cache_dir=cache_dir), real_dial_text(b, n, seed=1, cache_dir=cache_dir))
            todo.append((a, b, n, texts, kw))
    space_kw = {"dim": dial.dim, "max_vocab": dial.vecmap.vocab * 5, "cache_dir": cache_dir}
    sides = {((a, b)[side], n, side): texts[side] for a, b, n, texts, _ in todo for side in (0, 1)}
    parallel_map(text_side_space, [{"lang": REAL_DIAL_CORPORA[name][0], "text": text, "side": side, **space_kw}
                                   for (name, _, side), text in sides.items()])  # one job per distinct corpus side
    settings = [text_pair_setting(REAL_DIAL_CORPORA[a][0], texts[0], REAL_DIAL_CORPORA[b][0], texts[1], **space_kw,
                                  **kw) for a, b, n, texts, kw in todo]  # loaded from the cache filled above
    keys = [(i, seed) for i in range(len(todo)) for seed in dial.real_seeds]
    results = parallel_map(compare_aligners, [_aligners_job(settings[i], dial, seed, device, dial.real_adversarial)
                                              for i, seed in keys], device=device)
    rows = []
    for (i, _), res in zip(keys, results):
        a, b, n = todo[i][:3]
        rows.append({"point": f"{a} / {b}", "same language": REAL_DIAL_CORPORA[a][0] == REAL_DIAL_CORPORA[b][0],
                     "same domain": REAL_DIAL_CORPORA[a][1][0][0] == REAL_DIAL_CORPORA[b][1][0][0],
                     "n_sentences": n, **res})
    return rows


DIAL_UNSUPERVISED = ("Adv - Refine", "VecMap", "unsupervised (criterion)")


def dial_summary(rows: Sequence[Mapping], max_gap: float = 3.0,
                 keys: Sequence[str] = ("pair", "distance", "n_sentences")) -> list[dict]:
    """Per dial point: mean P@1 over seeds, each unsupervised method's gap to Procrustes and whether it is within ``max_gap``.

    A point is one value of ``keys`` (the synthetic dial's default; ``("point", "n_sentences")`` for
    :func:`run_real_dial`'s rows). "Within" is ``None`` (nothing to be close to) where Procrustes itself is at
    most ``2 max_gap``.
    Book: chapter 5 (Word translation without parallel data).
    """
    out = []
    for key in dict.fromkeys(tuple(r[k] for k in keys) for r in rows):
        group = [r for r in rows if tuple(r[k] for k in keys) == key]
        rec = {**dict(zip(keys, key)), "seeds": len(group),
               "Procrustes": float(np.mean([r["Procrustes"] for r in group]))}
        for m in (m for m in DIAL_UNSUPERVISED if all(m in r for r in group)):
            rec[m] = float(np.mean([r[m] for r in group]))
            rec[f"gap {m}"] = rec["Procrustes"] - rec[m]
            informative = rec["Procrustes"] > 2 * max_gap
            rec[f"within {max_gap:g} {m}"] = bool(rec[f"gap {m}"] <= max_gap) if informative else None
        out.append(rec)
    return out


# -- the paper's claims, declared as data over a flat dict of this run's numbers ----------------------------------

SUP_PREFIX = "Methods with cross-lingual supervision and fastText embeddings / "
UNS_PREFIX = "Methods without cross-lingual supervision and fastText embeddings / "
SENT_SUP = "Methods with cross-lingual supervision / Procrustes - "
_EUROPEAN = ["en-es", "es-en", "en-fr", "fr-en", "en-de", "de-en"]
_FIG43 = {"(a)": "(a) same corpus, other seed", "(d)": "(d) other corpus and model"}


def _frequency_accuracy(series: Mapping, method: str) -> float:
    """Accuracy over all test words of the first series of a Figure 4.3 panel (buckets weighted by size)."""
    res = next(iter(series.values()))
    n = np.asarray(res["n"], dtype=float)
    return float(np.sum(n * np.asarray(res[method])) / max(n.sum(), 1.0))


def claim_numbers(table_4_1: Mapping[str, Mapping[str, float]], hubness: Mapping[str, Mapping],
                  table_4_3: Mapping[str, Mapping[str, float]], table_4_5: Mapping[str, Mapping[str, float]],
                  agree: Mapping[str, bool], fig43: Mapping[str, Mapping], directions: Sequence[str],
                  dial: Sequence[Mapping] | None = None, success_ratio: float = 0.5,
                  bleu_directions: Mapping[str, str] | None = None,
                  real_dial: Sequence[Mapping] | None = None) -> dict[str, float]:
    """The flat numbers :func:`muse_claims` reads, from the chapter's tables as it logs them.

    ``table_4_1`` rows (``SUP_PREFIX``/``UNS_PREFIX`` + method) map to ``{direction: P@1}``;
    ``hubness`` is ``{"NN"|"CSLS": hubness_summary(...)}``; ``agree`` ``{direction: whether the criterion
    orders the maps as P@1 does}``; ``fig43`` ``{panel: {series: accuracy_by_frequency(...)}}``;
    ``dial`` the rows of :func:`dial_summary`. The unsupervised pipeline *succeeded* in a direction
    when its Adv-Refine-CSLS P@1 reaches ``success_ratio`` of Procrustes-CSLS; when it succeeded in no
    direction, the numbers of the claims about it are NaN (not testable here: the method never
    reached refinement's basin, so comparing it says nothing of the paper's setting). The dial's
    numbers are read at its nearest pair (smallest distance) and largest corpus, NaN without a dial.
    The BLEU of Table 4.5 is the paper's for the *unsupervised* dictionary: ``bleu_directions`` maps Table
    4.5's columns (``"en-eo"``, ``"eo-en"``) to our directions, and a column's unsupervised BLEU numbers are
    NaN (not testable) where the unsupervised map failed in that direction (without the mapping: where it
    failed in every direction). The supervised dictionary's BLEU stays, for the weaker form of the claim.
    ``real_dial``: :func:`dial_summary` rows of :func:`run_real_dial` keyed ``("point", "same language",
    "same domain", "n_sentences")``, read at the largest size both English points share: Procrustes' P@1
    and the criterion-picked unsupervised map's gap, same domain and other domain (NaN without them); the
    domain effect on the unsupervised gap is NaN (not testable) unless the unsupervised map reached
    ``success_ratio`` of Procrustes on the same-domain point.
    Book: chapter 5 (Word translation without parallel data).
    """
    directions = list(directions)
    if bleu_directions is not None and not all(isinstance(v, str) for v in bleu_directions.values()):
        raise TypeError("bleu_directions maps Table 4.5's columns to direction names such as 'en-fr'; got "
                        f"{ {k: type(v).__name__ for k, v in bleu_directions.items()} }.")
    if not directions or not agree:
        raise ValueError("directions and agree must not be empty; pass the chapter's setting names and table.")
    t41 = {k: table_4_1[p + k] for p, k in [(SUP_PREFIX, "Procrustes - NN"), (SUP_PREFIX, "Procrustes - CSLS"),
                                            (UNS_PREFIX, "Adv - CSLS"), (UNS_PREFIX, "Adv - Refine - CSLS")]}

    def wins(better: str, worse: str) -> int:
        return int(sum(bool(t41[better][d] > t41[worse][d]) for d in directions))

    succeeded = sum(bool(t41["Adv - Refine - CSLS"][d] >= success_ratio * t41["Procrustes - CSLS"][d] > 0)
                    for d in directions)
    nan = float("nan")
    out: dict[str, float] = {
        "directions": len(directions),
        "unsupervised succeeded (directions)": succeeded,
        "Procrustes: CSLS > NN (directions)": wins("Procrustes - CSLS", "Procrustes - NN"),
        "refined > adversarial, CSLS (directions)": wins("Adv - Refine - CSLS", "Adv - CSLS") if succeeded else nan,
        "mean gap Procrustes-CSLS minus Adv-Refine-CSLS": float(np.mean(
            [t41["Procrustes - CSLS"][d] - t41["Adv - Refine - CSLS"][d] for d in directions])) if succeeded else nan,
        "criterion agrees (share of directions)": sum(bool(v) for v in agree.values()) / len(agree),
    }
    near = None
    if dial:
        largest = max(r["n_sentences"] for r in dial)
        near = min((r for r in dial if r["n_sentences"] == largest), key=lambda r: r["distance"])
    for m in DIAL_UNSUPERVISED:
        testable = near is not None and any(k.startswith("within") and near[k] is not None for k in near)
        out[f"dial nearest pair: gap Procrustes minus {m}"] = near[f"gap {m}"] if testable else nan
    out |= _real_dial_numbers(real_dial or [], success_ratio)
    for m in ("NN", "CSLS"):
        out[f"never retrieved {m} (%)"] = hubness[m]["never retrieved (%)"]
        out[f"top hub {m}"] = hubness[m]["max count"]
        for d in ("it-en", "en-it"):
            out[f"sentences {d} P@1 {m}"] = table_4_3[SENT_SUP + m][f"{d} P@1"]
        for d in ("en-eo", "eo-en"):
            ours = (bleu_directions or {}).get(d)
            ok = (bool(t41["Adv - Refine - CSLS"][ours] >= success_ratio * t41["Procrustes - CSLS"][ours] > 0)
                  if ours in t41["Adv - Refine - CSLS"] and ours in t41["Procrustes - CSLS"] else False) \
                if bleu_directions is not None else succeeded > 0
            out[f"BLEU unsupervised {d} {m}"] = table_4_5[f"Dictionary - {m}"][d] if ok else nan
            out[f"BLEU Procrustes {d} {m}"] = table_4_5[f"ours: Procrustes dictionary - {m}"][d]
    for key, panel in _FIG43.items():
        out[f"Figure 4.3 {key} CSLS P@1"] = _frequency_accuracy(fig43[panel], "csls")
    return out


def _real_dial_numbers(summary: Sequence[Mapping], success_ratio: float) -> dict[str, float]:
    """The real dial's claim numbers (see :func:`claim_numbers`)."""
    nan = float("nan")
    english = [r for r in summary if r["same language"]]
    by_domain = {flag: {r["n_sentences"]: r for r in english if r["same domain"] == flag} for flag in (True, False)}
    common = sorted(set(by_domain[True]) & set(by_domain[False]))
    out = dict.fromkeys(("real dial same domain: Procrustes", "real dial other domain: Procrustes",
                         "real dial same domain: gap Procrustes minus unsupervised (criterion)",
                         "real dial other domain: gap Procrustes minus unsupervised (criterion)",
                         "real dial: unsupervised gap, other minus same domain"), nan)
    if not common:
        return out
    same, other = by_domain[True][common[-1]], by_domain[False][common[-1]]
    gap = "gap unsupervised (criterion)"
    out |= {"real dial same domain: Procrustes": same["Procrustes"], "real dial other domain: Procrustes":
            other["Procrustes"], "real dial same domain: gap Procrustes minus unsupervised (criterion)": same[gap],
            "real dial other domain: gap Procrustes minus unsupervised (criterion)": other[gap]}
    if same["unsupervised (criterion)"] >= success_ratio * same["Procrustes"] > 0:
        out["real dial: unsupervised gap, other minus same domain"] = other[gap] - same[gap]
    return out


def _paper_wins(better: str, worse: str) -> str:
    """In how many of the stored thesis Table 4.1's directions row ``better`` beats row ``worse``."""
    t = paper_table("thesis", "table_4_1")
    return f"{int((t.loc[better] > t.loc[worse]).sum())}/{t.shape[1]} directions (Table 4.1)"


def muse_claims(max_gap: float = 3.0, min_agreement: float = 0.75) -> list[Claim]:
    """The thesis' claims of section 4.1, each one test of :func:`claim_numbers`.

    The paper's numbers are read from the stored thesis tables. A "beats" claim must
    hold in every direction; "close to supervised" is a mean gap of at most
    ``max_gap`` points; the criterion must order the maps as accuracy does in at least
    ``min_agreement`` of the directions.
    Book: chapter 5 (Word translation without parallel data).
    """
    sup, uns = SUP_PREFIX, UNS_PREFIX
    t41 = paper_table("thesis", "table_4_1")
    gap = t41.loc[sup + "Procrustes - CSLS"] - t41.loc[uns + "Adv - Refine - CSLS"]
    sent = {d: [PaperCell("thesis", "table_4_3", SENT_SUP + m, f"{d} P@1")
                for m in ("NN", "CSLS")] for d in ("it-en", "en-it")}
    bleu = {d: [PaperCell("thesis", "table_4_5", f"Dictionary - {m}", d)
                for m in ("NN", "CSLS")] for d in ("en-eo", "eo-en")}
    hubs = "argued in the text (Figure 4.1 D)"
    untestable = ("the chapter's pairs; not testable when Adv-Refine reached half of Procrustes' P@1 in no "
                  "direction")
    dial_note = ("synthetic dial: nearest pair (two corpora of one language), largest corpus, mean over seeds; "
                 "P@1 CSLS on the gold lexicon's test half")
    on_procrustes = "CSLS above NN with the supervised (Procrustes) dictionary instead"
    real_note = ("real dial: English news (one half of nlp-corpus) against its other half (same domain) and against "
                 "Brown + fortunes + KJV (other domain), largest size both ran; identity on frequent shared words")
    return [
        Claim("'CSLS provides a strong and robust gain in performance across all language pairs' (Procrustes, "
              "Table 4.1)", "Procrustes: CSLS > NN (directions)", "==", "directions",
              _paper_wins(sup + "Procrustes - CSLS", sup + "Procrustes - NN"), note="every direction"),
        Claim("'This performance is on par with supervised approaches' (Adv-Refine-CSLS against Procrustes-CSLS)",
              "mean gap Procrustes-CSLS minus Adv-Refine-CSLS", "<=", max_gap,
              f"mean gap {gap[_EUROPEAN].mean():.1f} points (Table 4.1, European pairs)",
              note=f"'on par' read as a mean gap of at most {max_gap:g} points; {untestable}"),
        Claim("'The refinement step ... brings an additional and significant gain in performance' "
              "(Adv-CSLS -> Adv-Refine-CSLS)", "refined > adversarial, CSLS (directions)", "==", "directions",
              _paper_wins(uns + "Adv - Refine - CSLS", uns + "Adv - CSLS"), note=f"every direction; {untestable}"),
        Claim(f"near-isomorphic spaces: MUSE's Adv-Refine within {max_gap:g} points of Procrustes (dial)",
              "dial nearest pair: gap Procrustes minus Adv - Refine", "<=", max_gap,
              f"mean gap {gap[_EUROPEAN].mean():.1f} points (Table 4.1, European pairs)", note=dial_note),
        Claim(f"near-isomorphic spaces: an unsupervised map picked by the criterion within {max_gap:g} points "
              "of Procrustes (dial; Adv-Refine or VecMap)",
              "dial nearest pair: gap Procrustes minus unsupervised (criterion)", "<=", max_gap,
              "beyond the paper: VecMap's initialisation (Artetxe et al. 2018)", note=dial_note),
        Claim("CSLS reduces hubness: fewer never-retrieved targets",
              "never retrieved CSLS (%)", "<", "never retrieved NN (%)", hubs),
        Claim("CSLS reduces hubness: a smaller top hub",
              "top hub CSLS", "<", "top hub NN", hubs),
        *[Claim(f"'a strong gain in accuracy in the Italian-English sentence retrieval task using CSLS', {d} "
                "(Table 4.3, Procrustes)", f"sentences {d} P@1 CSLS", ">", f"sentences {d} P@1 NN", sent[d])
          for d in ("it-en", "en-it")],
        *[Claim(f"'The quality of the generated dictionary has a significant impact on the BLEU score': the "
                f"unsupervised CSLS dictionary above NN, {d} (Table 4.5)",
                f"BLEU unsupervised {d} CSLS", ">", f"BLEU unsupervised {d} NN", bleu[d],
                note="on the unsupervised dictionary, as the paper; not testable where the unsupervised map "
                     "failed (Adv-Refine below half of Procrustes' P@1 in that direction)",
                weaker=Weaker(on_procrustes, f"BLEU Procrustes {d} CSLS", ">", f"BLEU Procrustes {d} NN"))
          for d in ("en-eo", "eo-en")],
        Claim("the criterion ranks maps as accuracy does (Figure 4.2)",
              "criterion agrees (share of directions)", ">=", min_agreement,
              "well correlated (one run shown)",
              note=f"'well correlated' read as the right order in at least {min_agreement:g} of the directions"),
        Claim("same-corpus spaces align better than other corpora and models (Figure 4.3)",
              "Figure 4.3 (a) CSLS P@1", ">", "Figure 4.3 (d) CSLS P@1",
              "(a) near perfect, (d) worst"),
        Claim(f"real text, one language and domain: an unsupervised map picked by the criterion within {max_gap:g} "
              "points of Procrustes (real dial, largest corpus)",
              "real dial same domain: gap Procrustes minus unsupervised (criterion)", "<=", max_gap,
              f"mean gap {gap[_EUROPEAN].mean():.1f} points (Table 4.1, European pairs, Wikipedia)",
              note=real_note),
        Claim("domain mismatch lowers even supervised P@1 between two English corpora (Sogaard et al. 2018)",
              "real dial other domain: Procrustes", "<", "real dial same domain: Procrustes",
              "beyond the thesis: Sogaard et al. (2018)", note=real_note),
        Claim("domain mismatch widens the gap between unsupervised and supervised maps (Sogaard et al. 2018)",
              "real dial: unsupervised gap, other minus same domain", ">", 0.0,
              "beyond the thesis: Sogaard et al. (2018)",
              note=f"{real_note}; not testable when the unsupervised map reached less than half of Procrustes' "
                   "P@1 on the same-domain corpora"),
    ]
