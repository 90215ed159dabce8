"""The isomorphism dial: supervised against unsupervised word maps as two spaces drift apart.

On the synthetic world (:func:`run_dial`), language pairs at a growing typological distance and
corpora of growing size; on real text (:func:`run_real_dial`), two corpora of one language or of
two, from one domain or from two. Every point compares Procrustes with MUSE's adversarial pipeline
and VecMap (:func:`~xsent_lib.eval.word_maps.compare_aligners`); :func:`dial_summary` averages the
seeds and says which unsupervised map came within a few points of Procrustes.
Book: chapter 5 (Word translation without parallel data).
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.setting import (
    WordTranslationSetting,
    synthetic_pair_setting,
    synthetic_side_space,
    text_pair_setting,
    text_side_space,
)
from xsent_lib.align.vecmap import VecMapConfig
from xsent_lib.base.parallel import parallel_map
from xsent_lib.data.dial_corpora import REAL_DIAL_CORPORA, real_dial_size, real_dial_text
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_dictionaries import freedict_pairs
from xsent_lib.data.word_spaces import typological_distance
from xsent_lib.eval.word_maps import compare_aligners

#: the unsupervised columns of a dial row, beside ``Procrustes``
DIAL_UNSUPERVISED = ("Adv - Refine", "VecMap", "unsupervised (criterion)")


@dataclass(frozen=True, kw_only=True)
class DialConfig:
    """The isomorphism dial's grid: synthetic language pairs by typological distance, corpus sizes,
    seeds.

    ``pairs`` are aligned at the largest of ``sentences`` (the distance axis); ``size_pairs`` at
    every size (the corpus-size axis); each point with every seed of ``seeds`` (the seed of the
    unsupervised methods; the corpora and spaces stay fixed). ``dim``: word-vector size; ``adv``,
    ``restarts``, ``refine_iters``, ``max_rank``: MUSE's pipeline; ``vecmap``: the robust
    initialisation. ``real_points``: pairs of :data:`~xsent_lib.data.dial_corpora.REAL_DIAL_CORPORA`
    names aligned at every size of ``real_sentences`` (same or other language, same or other
    domain), each with every seed of ``real_seeds``; ``real_adversarial=False`` leaves MUSE's
    adversarial pipeline out of them and compares VecMap with Procrustes.
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


def dial_points(dial: DialConfig) -> list[tuple[str, str, int]]:
    """The dial's ``(src, tgt, n_sentences)`` points: every pair at the largest size, ``size_pairs``
    at all.

    Book: chapter 5 (Word translation without parallel data).
    """
    largest = max(dial.sentences)
    points = [(a, b, largest) for a, b in dial.pairs]
    points += [(a, b, n) for a, b in dial.size_pairs for n in sorted(dial.sentences)
               if n != largest]
    return list(dict.fromkeys(points))


def _aligners_job(setting: WordTranslationSetting, dial: DialConfig, seed: int, device: str,
                  adversarial: bool = True) -> dict:
    """The keyword arguments of one :func:`compare_aligners` call of the dial."""
    return {"setting": setting, "adv_config": dial.adv, "vecmap_config": dial.vecmap,
            "n_restarts": dial.restarts, "refine_iters": dial.refine_iters,
            "max_rank": dial.max_rank, "seed": seed, "device": device, "adversarial": adversarial}


def run_dial(world: SyntheticWorld, dial: DialConfig, *, device: str = "cpu",
             cache_dir: str | os.PathLike[str] | None = None) -> list[dict]:
    """Supervised and unsupervised P@1 at every dial point and seed (:func:`compare_aligners`).

    Each row adds ``distance`` (:func:`typological_distance`) and ``n_sentences``.
    Book: chapter 5 (Word translation without parallel data).
    """
    points = dial_points(dial)
    sides = dict.fromkeys((lang, split, n) for a, b, n in points
                          for lang, split in ((a, "train"), (b, "dev")))
    parallel_map(synthetic_side_space, [{"world": world, "lang": lang, "split": split,
                                         "n_sentences": n, "dim": dial.dim, "cache_dir": cache_dir}
                                        for lang, split, n in sides])
    settings = [synthetic_pair_setting(world, a, b, n_sentences=n, dim=dial.dim,
                                       cache_dir=cache_dir)
                for a, b, n in points]  # loaded from the cache the lines above filled
    keys = [(i, seed) for i in range(len(points)) for seed in dial.seeds]
    results = parallel_map(compare_aligners, [_aligners_job(settings[i], dial, seed, device)
                                              for i, seed in keys], device=device)
    return [{"distance": typological_distance(points[i][0], points[i][1]),
             "n_sentences": points[i][2], **res} for (i, _), res in zip(keys, results)]


def run_real_dial(dial: DialConfig, *, device: str = "cpu",
                  cache_dir: str | os.PathLike[str] | None = None) -> list[dict]:
    """The dial on real text: supervised and unsupervised P@1 (:func:`compare_aligners`' rows).

    Every pair of ``dial.real_points`` at every size of ``dial.real_sentences``, with every seed of
    ``dial.real_seeds``.

    Two corpora of one language are scored on identity over their frequent shared words;
    English-French on the FreeDict dictionary. Each row adds ``point`` (``"src / tgt"``), ``same
    language``, ``same domain`` (the nlp-corpus halves are one domain, every other pairing is not)
    and ``n_sentences``. A size larger than a corpus of the point is skipped with a printed note.
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
                print(f"NOTE: real dial {a} / {b} skips {n:,} sentences: {', '.join(short)} holds "
                      "fewer lines.")
                continue
            texts = (real_dial_text(a, n, cache_dir=cache_dir),
                     real_dial_text(b, n, seed=1, cache_dir=cache_dir))
            todo.append((a, b, n, texts, kw))
    space_kw = {"dim": dial.dim, "max_vocab": dial.vecmap.vocab * 5, "cache_dir": cache_dir}
    sides = {((a, b)[side], n, side): texts[side] for a, b, n, texts, _ in todo for side in (0, 1)}
    parallel_map(text_side_space, [{"lang": REAL_DIAL_CORPORA[name][0], "text": text, "side": side,
                                    **space_kw} for (name, _, side), text in sides.items()])
    settings = [text_pair_setting(REAL_DIAL_CORPORA[a][0], texts[0], REAL_DIAL_CORPORA[b][0],
                                  texts[1], **space_kw, **kw)
                for a, b, n, texts, kw in todo]  # loaded from the cache the lines above filled
    keys = [(i, seed) for i in range(len(todo)) for seed in dial.real_seeds]
    results = parallel_map(compare_aligners, [_aligners_job(settings[i], dial, seed, device,
                                                            dial.real_adversarial)
                                              for i, seed in keys], device=device)
    rows = []
    for (i, _), res in zip(keys, results):
        a, b, n = todo[i][:3]
        rows.append({"point": f"{a} / {b}",
                     "same language": REAL_DIAL_CORPORA[a][0] == REAL_DIAL_CORPORA[b][0],
                     "same domain": REAL_DIAL_CORPORA[a][1][0][0] == REAL_DIAL_CORPORA[b][1][0][0],
                     "n_sentences": n, **res})
    return rows


def dial_summary(rows: Sequence[Mapping], max_gap: float = 3.0,
                 keys: Sequence[str] = ("pair", "distance", "n_sentences")) -> list[dict]:
    """Per dial point: mean P@1 over seeds, each unsupervised map's gap to Procrustes and "within".

    "Within" is whether the gap is at most ``max_gap``, ``None`` (nothing to be close to) where
    Procrustes itself is at most ``2 max_gap``. A point is one value of ``keys`` (the synthetic
    dial's default; ``("point", "n_sentences")`` for :func:`run_real_dial`'s rows).
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
            within = bool(rec[f"gap {m}"] <= max_gap) if informative else None
            rec[f"within {max_gap:g} {m}"] = within
        out.append(rec)
    return out
