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
from dataclasses import dataclass

import numpy as np

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.setting import WordTranslationSetting, make_setting
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_dictionaries import freedict_pairs
from xsent_lib.data.word_spaces import LanguageSpace, language_seed, make_space, real_space, synthetic_space
from xsent_lib.results.claims import Claim, PaperCell
from xsent_lib.results.paper import paper_table

SYNTHETIC_PAIRS = (("en", "xa"), ("en", "xe"), ("en", "xb"), ("en", "xd"))
REAL_PAIRS = (("en", "de"), ("en", "fr"), ("en", "es"), ("en", "ru"))


# -- the profiles ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MuseProfile:
    """The sizes of one run of chapter 5 (the thesis values are the ``full`` profile's).

    ``dim``/``max_vocab``/``n_sentences``: word spaces; ``pairs``/``restarts``/``adv``: the unsupervised
    pipeline (restarts per pair, adversarial settings); ``refine_iters``/``max_rank``/``align_vocab``:
    refinement and the frequency cut-off; ``n_eval_sents``/``n_idf_sents``: Table 4.3; ``n_bleu``: Table
    4.5; ``toy_points``/``toy_restarts``: Figure 4.1; ``basin_angles``: the refinement basin;
    ``en_sentences``: Figure 4.3's synthetic English (``None``: ``n_sentences``).
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


PROFILES = {
    "smoke": MuseProfile(dim=16, max_vocab=None, n_sentences=3000, pairs=SYNTHETIC_PAIRS[:2], restarts=2,
                         adv=AdversarialConfig(dis_hidden=32, batch_size=32, dis_steps=1, epoch_size=32 * 20,
                                               n_epochs=2, most_frequent=1000, criterion_words=500),
                         refine_iters=1, max_rank=1000, align_vocab=None, n_eval_sents=300, n_idf_sents=1000,
                         n_bleu=200, toy_points=120, toy_restarts=2, basin_angles=(30, 90), en_sentences=3000),
    "book": MuseProfile(dim=100, max_vocab=20_000, n_sentences=20_000, pairs=REAL_PAIRS, restarts=3,
                        adv=AdversarialConfig(dis_hidden=256, batch_size=128, dis_steps=2, epoch_size=128 * 200,
                                              n_epochs=3, most_frequent=10_000, criterion_words=5_000),
                        refine_iters=2, max_rank=10_000, align_vocab=10_000, n_eval_sents=5_000,
                        n_idf_sents=50_000, n_bleu=2_000, toy_points=300, toy_restarts=6,
                        basin_angles=(30, 60, 75, 90), en_sentences=None),
    "full": MuseProfile(dim=300, max_vocab=200_000, n_sentences=200_000, pairs=REAL_PAIRS, restarts=5,
                        adv=AdversarialConfig(),  # the thesis values
                        refine_iters=5, max_rank=15_000, align_vocab=None, n_eval_sents=20_000,
                        n_idf_sents=80_000, n_bleu=10_000, toy_points=300, toy_restarts=10,
                        basin_angles=(15, 30, 45, 60, 75, 90, 120), en_sentences=None),
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
    for lang in langs:
        if source == "real":
            spaces[lang] = real_space(lang, dim=dim, max_vocab=max_vocab, seed=language_seed(lang, seed),
                                      cache_dir=cache_dir)
        elif source == "synthetic":
            spaces[lang] = synthetic_space(world, lang, n_sentences=n_sentences, dim=dim,
                                           seed=language_seed(lang, seed), cache_dir=cache_dir)
        else:
            from pathlib import Path

            from xsent_lib.data.formats import load_vec

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
                  agree: Mapping[str, bool], fig43: Mapping[str, Mapping], directions: Sequence[str]
                  ) -> dict[str, float]:
    """The flat numbers :func:`muse_claims` reads, from the chapter's tables as it logs them.

    ``table_4_1`` rows (``SUP_PREFIX``/``UNS_PREFIX`` + method) map to ``{direction: P@1}``;
    ``hubness`` is ``{"NN"|"CSLS": hubness_summary(...)}``; ``agree`` ``{direction: whether the criterion
    orders the maps as P@1 does}``; ``fig43`` ``{panel: {series: accuracy_by_frequency(...)}}``.
    Book: chapter 5 (Word translation without parallel data).
    """
    directions = list(directions)
    if not directions or not agree:
        raise ValueError("directions and agree must not be empty; pass the chapter's setting names and table.")
    t41 = {k: table_4_1[p + k] for p, k in [(SUP_PREFIX, "Procrustes - NN"), (SUP_PREFIX, "Procrustes - CSLS"),
                                            (UNS_PREFIX, "Adv - CSLS"), (UNS_PREFIX, "Adv - Refine - CSLS")]}

    def wins(better: str, worse: str) -> int:
        return int(sum(bool(t41[better][d] > t41[worse][d]) for d in directions))

    out: dict[str, float] = {
        "directions": len(directions),
        "Procrustes: CSLS > NN (directions)": wins("Procrustes - CSLS", "Procrustes - NN"),
        "refined > adversarial, CSLS (directions)": wins("Adv - Refine - CSLS", "Adv - CSLS"),
        "mean gap Procrustes-CSLS minus Adv-Refine-CSLS": float(np.mean(
            [t41["Procrustes - CSLS"][d] - t41["Adv - Refine - CSLS"][d] for d in directions])),
        "criterion agrees (share of directions)": sum(bool(v) for v in agree.values()) / len(agree),
    }
    for m in ("NN", "CSLS"):
        out[f"never retrieved {m} (%)"] = hubness[m]["never retrieved (%)"]
        out[f"top hub {m}"] = hubness[m]["max count"]
        for d in ("it-en", "en-it"):
            out[f"sentences {d} P@1 {m}"] = table_4_3[SENT_SUP + m][f"{d} P@1"]
        for d in ("en-eo", "eo-en"):
            out[f"BLEU unsupervised {d} {m}"] = table_4_5[f"Dictionary - {m}"][d]
            out[f"BLEU Procrustes {d} {m}"] = table_4_5[f"ours: Procrustes dictionary - {m}"][d]
    for key, panel in _FIG43.items():
        out[f"Figure 4.3 {key} CSLS P@1"] = _frequency_accuracy(fig43[panel], "csls")
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
    on_procrustes = "checked on the Procrustes dictionary"
    return [
        Claim("CSLS beats NN with Procrustes (Table 4.1)",
              "Procrustes: CSLS > NN (directions)", "==", "directions",
              _paper_wins(sup + "Procrustes - CSLS", sup + "Procrustes - NN")),
        Claim(f"unsupervised Adv-Refine-CSLS within ~{max_gap:g} points of Procrustes-CSLS",
              "mean gap Procrustes-CSLS minus Adv-Refine-CSLS", "<=", max_gap,
              f"mean gap {gap[_EUROPEAN].mean():.1f} points (Table 4.1, European pairs)"),
        Claim("refinement improves the adversarial map (Adv-CSLS -> Adv-Refine-CSLS)",
              "refined > adversarial, CSLS (directions)", "==", "directions",
              _paper_wins(uns + "Adv - Refine - CSLS", uns + "Adv - CSLS")),
        Claim("CSLS reduces hubness: fewer never-retrieved targets",
              "never retrieved CSLS (%)", "<", "never retrieved NN (%)", hubs),
        Claim("CSLS reduces hubness: a smaller top hub",
              "top hub CSLS", "<", "top hub NN", hubs),
        *[Claim(f"CSLS beats NN for sentence retrieval, {d} (Table 4.3, Procrustes)",
                f"sentences {d} P@1 CSLS", ">", f"sentences {d} P@1 NN", sent[d])
          for d in ("it-en", "en-it")],
        *[Claim(f"a CSLS dictionary gives higher word-by-word BLEU than NN, {d} (Table 4.5)",
                f"BLEU Procrustes {d} CSLS", ">", f"BLEU Procrustes {d} NN", bleu[d],
                note=on_procrustes)
          for d in ("en-eo", "eo-en")],
        Claim("the criterion ranks maps as accuracy does (Figure 4.2)",
              "criterion agrees (share of directions)", ">=", min_agreement,
              "well correlated (one run shown)"),
        Claim("same-corpus spaces align better than other corpora and models (Figure 4.3)",
              "Figure 4.3 (a) CSLS P@1", ">", "Figure 4.3 (d) CSLS P@1",
              "(a) near perfect, (d) worst"),
    ]
