"""XNLI's tables (thesis Tables 4.9-4.11, XNLI Tables 1, 3-5) built from a run's rows, and the
sentences that state what the run produced.

A run's accuracies are ``rows``: a row key (:data:`ROWS` for the paper's rows, :data:`EXTRA_ROWS`
for ours) -> ``{language: accuracy}``. Our invented languages sit under the XNLI column whose
typology they resemble (:data:`PAPER_COLUMN`); real-text languages keep their own codes (``fr-mt``),
outside the paper's columns.
Book: chapter 6 (XNLI and aligned encoders).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from xsent_lib.data.xnli import XNLIBenchmark, typological_distance
from xsent_lib.data.xnli_languages import MT_SYSTEMS, PAPER_COLUMN, is_synthetic
from xsent_lib.encoders.baselines import REFERENCE_ENCODERS
from xsent_lib.eval.translation_quality import TranslatorScore
from xsent_lib.eval.xnli import with_average
from xsent_lib.results.paper import paper_table
from xsent_lib.train.alignment import AlignRun

ROWS = {
    "tt": "TRANSLATE TRAIN / BiLSTM-max",
    "ttest": "TRANSLATE TEST / BiLSTM-max",
    "ttest-last": "TRANSLATE TEST / BiLSTM-last",
    "x-max": "XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-max",
    "x-last": "XNLI multilingual sentence encoders (in-domain) / X-BiLSTM-last",
    "x-cbow": "Pretrained multilingual sentence encoders (transfer learning) / X-CBOW",
}
# The same rows as labelled in the thesis's Table 4.10 (same numbers as XNLI's Table 4).
_THESIS_GROUP = {
    "TRANSLATE TRAIN": "Machine translation baselines (TRANSLATE TRAIN)",
    "TRANSLATE TEST": "Machine translation baselines (TRANSLATE TEST)",
    "XNLI multilingual sentence encoders (in-domain)":
        "Evaluation of XNLI multilingual sentence encoders (in-domain)",
    "Pretrained multilingual sentence encoders (transfer learning)":
        "Evaluation of pretrained multilingual sentence encoders (transfer learning)",
}
THESIS_ROWS = {
    label: f"{_THESIS_GROUP[label.split(' / ')[0]]} / {label.split(' / ')[1]}"
    for label in ROWS.values()
}
# Display labels of the Table 4 rows (the paper's section names shortened).
SHORT_ROWS = {
    ROWS["tt"]: "TRANSLATE TRAIN, BiLSTM-max",
    ROWS["ttest"]: "TRANSLATE TEST, BiLSTM-max",
    ROWS["ttest-last"]: "TRANSLATE TEST, BiLSTM-last",
    "TRANSLATE TRAIN / BiLSTM-last": "TRANSLATE TRAIN, BiLSTM-last",
    ROWS["x-max"]: "X-BiLSTM-max",
    ROWS["x-last"]: "X-BiLSTM-last",
    ROWS["x-cbow"]: "X-CBOW",
}
# Our rows without a counterpart in the paper (Table 4 labels), and the translation function each
# row used.
EXTRA_ROWS = {
    "ttest-wbw": "TRANSLATE TEST, word-by-word (ours)",
    **{f"ttest-{key}": f"TRANSLATE TEST, {name} (ours)" for key, name in MT_SYSTEMS.items()},
    **{f"tt-{key}": f"TRANSLATE TRAIN, {name} (ours)" for key, name in MT_SYSTEMS.items()},
    **{f"ref-{name}": f"{name}, frozen + XNLI classifier (ours)" for name in REFERENCE_ENCODERS},
}
ROW_TRANSLATION = {
    "ttest": "the synthetic world's exact translator",
    "ttest-last": "the synthetic world's exact translator",
    "tt": "the synthetic world's exact translator",
    "ttest-wbw": "word by word with the world's gold lexicon (FreeDict-style)",
    **{
        f"{row}-freedict": "FreeDict word by word (cached freedict lexicons)"
        for row in ("ttest", "tt")
    },
    **{f"{row}-apertium": "Apertium (installed system package)" for row in ("ttest", "tt")},
}
ABLATION_ROWS = {
    "ft = 1, λ = 0.25": "ft = 1, λ = 0.25 [default]",
    "ft = 1, λ = 0": "ft = 1, λ = 0.0 (no negatives)",
    "ft = 1, λ = 0.5": "ft = 1, λ = 0.5",
    "ft = 0, λ = 0.25": "ft = 0, λ = 0.25",
}


def paper_row(accuracies: Mapping[str, float | None]) -> dict[str, float | None]:
    """Our per-language accuracies keyed by the paper's columns (:data:`PAPER_COLUMN`; real codes
    stay).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {PAPER_COLUMN.get(lang, lang): value for lang, value in accuracies.items()}


def label_columns(frame: pd.DataFrame, languages: Sequence[str]) -> pd.DataFrame:
    """Relabel a side-by-side table's paper columns with the language of ours under each, e.g. ``"fr
    | xa"``.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    ours = {PAPER_COLUMN.get(lang, lang): lang for lang in languages}
    names = {
        c: f"{c} | {ours[c]}" if c in ours and ours[c] != c else c
        for c in frame.columns.get_level_values(0)
    }
    return frame.rename(columns=names, level=0)


def table_1_counts(bench: XNLIBenchmark) -> dict[str, dict[str, float | None]]:
    """XNLI's size per language (the paper states 7,500 dev + test pairs in each of its 15
    languages, Sec. 1), ours keyed by the paper's columns (:func:`paper_row`): dev + test pairs of
    every test language.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {
        "dev + test pairs": paper_row(
            {lang: len(bench.dev.get(lang, ())) + len(bench.test[lang]) for lang in bench.languages}
        )
    }


def table_4_ours(
    rows: Mapping[str, Mapping[str, float | None]],
    languages: Sequence[str],
    extra: Sequence[str] = (),
) -> dict[str, dict]:
    """Table 4 (thesis 4.10): each of our rows (keys of :data:`ROWS` or :data:`EXTRA_ROWS`) with its
    average over ``languages``; the ``extra`` columns (real-text languages) are shown after it,
    outside the average.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = {}
    for key, acc in rows.items():
        label = ROWS.get(key) or EXTRA_ROWS.get(key)
        if label is None:
            raise KeyError(
                f"row {key!r} has no Table 4 label; known: {sorted({**ROWS, **EXTRA_ROWS})}."
            )
        row = paper_row(with_average({lang: acc.get(lang) for lang in languages}, languages))
        out[label] = {**row, **{code: acc.get(code) for code in extra}}
    return out


def row_translations(
    rows: Mapping[str, Mapping[str, float | None]], bench: XNLIBenchmark
) -> list[dict[str, Any]]:
    """Which translation function (or none) each row of the run used, and on which languages.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = []
    for key, acc in rows.items():
        langs = [lang for lang, v in acc.items() if lang != "en" and v is not None]
        label = row_name(key)
        if key.startswith("ref-"):
            how = ("none (zero-shot: one shipped multilingual encoder for every language, English "
                   "classifier)")
        else:
            how = ROW_TRANSLATION.get(
                key, "none (zero-shot: one aligned encoder per language, English classifier)"
            )
        if key.rsplit("-", 1)[-1] in MT_SYSTEMS:
            how = "; ".join(sorted({bench.translated_by.get(lang, how) for lang in langs})) or how
        out.append({"row": label, "translation": how, "languages": ", ".join(langs)})
    return out


def thesis_labels(table: Mapping[str, Any]) -> dict[str, Any]:
    """Our Table 4 keyed by the thesis's Table 4.10 row labels (rows it does not have keep their
    label).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {THESIS_ROWS.get(row, row): values for row, values in table.items()}


def table_5_ours(ablation: Mapping[str, Mapping[str, float]]) -> dict[str, dict]:
    """Table 5 (thesis 4.11): accuracy per ablation setting (``AlignConfig.label()``) and language.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return {
        ABLATION_ROWS.get(label, f"{label} (ours)"): paper_row(acc)
        for label, acc in ablation.items()
    }


def distance_rows(
    rows: Mapping[str, Mapping[str, float | None]], methods: Mapping[str, str]
) -> list[dict[str, Any]]:
    """(language, typological distance from English, accuracy, method) for every synthetic target
    language of each row (real-text languages have no distance in the world).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return [
        {"language": lang, "distance": typological_distance("en", lang), "acc": acc, "method": name}
        for key, name in methods.items()
        for lang, acc in rows.get(key, {}).items()
        if lang != "en" and acc is not None and is_synthetic(lang)
    ]


def row_name(key: str) -> str:
    """The display label of row ``key`` (:data:`SHORT_ROWS` for the paper's rows, :data:`EXTRA_ROWS`
    for ours).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    return SHORT_ROWS.get(ROWS.get(key, ""), "") or EXTRA_ROWS.get(key, key)


def best_row_sentence(
    rows: Mapping[str, Mapping[str, float | None]], languages: Sequence[str]
) -> str:
    """Which row has the highest mean over ``languages`` (rows with every cell; rows with only some
    of them are named as left out) and by how much it leads the next.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    langs = [lang for lang in languages if lang != "en"]
    full = {
        key: float(np.mean([acc[lang] for lang in langs]))
        for key, acc in rows.items()
        if langs and all(acc.get(lang) is not None for lang in langs)
    }
    if not full:
        return (
            f"no row has a cell for every one of {', '.join(langs) or 'no language'}: no best row."
        )
    order = sorted(full, key=full.get, reverse=True)
    out = f"highest mean over {', '.join(langs)}: {row_name(order[0])} {full[order[0]]:.1f}"
    if len(order) > 1:
        lead = full[order[0]] - full[order[1]]
        out += f", {lead:.1f} points above {row_name(order[1])} ({full[order[1]]:.1f})"
    partial = [
        row_name(key)
        for key, acc in rows.items()
        if key not in full and any(acc.get(lang) is not None for lang in langs)
    ]
    return out + (
        f"; not every language scored, so left out: {', '.join(partial)}." if partial else "."
    )


def seed_noise_sentence(
    ablation: Mapping[str, Mapping[str, float]], parallel_curve: Sequence[Mapping[str, float]]
) -> str:
    """The largest gap between two seeds at one bitext size (the bitext curve), beside the gaps
    between the ablation settings' mean accuracies: how many of those gaps are smaller than the seed
    spread.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    spreads = [
        max(a) - min(a)
        for n in {p["n"] for p in parallel_curve}
        if len(a := [p["acc"] for p in parallel_curve if p["n"] == n]) > 1
    ]
    means = {label: float(np.mean(list(acc.values()))) for label, acc in ablation.items() if acc}
    if not spreads:
        return (
            "this run aligns every bitext size with one seed only, so it measures no seed spread: "
            "the gaps "
            "between ablation settings cannot be compared with what another seed moves."
        )
    spread = max(spreads)
    out = (f"at one bitext size, another alignment seed moved test accuracy by up to {spread:.1f} "
           "points")
    labels = list(means)
    gaps = [abs(means[a] - means[b]) for i, a in enumerate(labels) for b in labels[i + 1 :]]
    if gaps:
        small = sum(g < spread for g in gaps)
        out += (
            f"; {small} of the {len(gaps)} gaps between two ablation settings (mean dev accuracy, "
            f"largest "
            f"{max(gaps):.1f}) are smaller than that"
        )
    return out + "."


def run_summary(
    rows: Mapping[str, Mapping[str, float | None]],
    aligned: Mapping[str, Mapping[str, AlignRun]],
    parallel_curve: Sequence[Mapping[str, float]],
    real_text: Sequence[str] = (),
    ablation: Mapping[str, Mapping[str, float]] | None = None,
) -> list[str]:
    """Plain sentences stating what the run produced: averages and extremes over the main table's
    languages (every target but the ``real_text`` ones), the row with the highest average, every row
    on each real-text language, where alignment stopped, the seed spread and how the ablation's gaps
    compare with it.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = []
    averaged = sorted(
        {lang for acc in rows.values() for lang in acc if lang != "en" and lang not in real_text}
    )
    for key, name in (
        ("x-max", "X-BiLSTM-max"),
        ("x-last", "X-BiLSTM-last"),
        ("x-cbow", "X-CBOW"),
        ("ttest-wbw", "translate-test (word-by-word)"),
        ("tt", "translate-train"),
    ):
        accs = {
            lang: v for lang, v in rows.get(key, {}).items() if lang in averaged and v is not None
        }
        if accs:
            lo, hi = min(accs, key=accs.get), max(accs, key=accs.get)
            out.append(
                f"{name}: mean {np.mean(list(accs.values())):.1f} over {len(accs)} target "
                f"languages (highest {hi} {accs[hi]:.1f}, lowest {lo} {accs[lo]:.1f}); "
                f"English {rows[key].get('en', float('nan')):.1f}."
            )
    if averaged:
        best = best_row_sentence(rows, averaged)
        out.append(best[0].upper() + best[1:])
    for lang in real_text:
        cells = {row_name(k): acc[lang] for k, acc in rows.items() if acc.get(lang) is not None}
        if cells:
            best = max(cells, key=cells.get)
            out.append(
                f"{lang} (real-text bitext, machine-translated test): "
                + ", ".join(f"{k} {v:.1f}" for k, v in cells.items())
                + f"; highest: {best}."
            )
    for name, runs in aligned.items():
        last = [
            lang for lang, run in runs.items() if run.history.best_epoch == len(run.history.epoch)
        ]
        if last:
            out.append(
                f"{name}: the last alignment epoch was the best for {', '.join(last)} "
                f"({len(last)} of {len(runs)} languages)."
            )
    for n in sorted({p["n"] for p in parallel_curve}):
        accs = [p["acc"] for p in parallel_curve if p["n"] == n]
        if len(accs) > 1:
            out.append(
                f"{n} parallel sentences: accuracy {min(accs):.1f} to {max(accs):.1f} over "
                f"{len(accs)} seeds."
            )
    if ablation is not None:
        noise = seed_noise_sentence(ablation, parallel_curve)
        out.append(noise[0].upper() + noise[1:])
    return out


def with_paper_columns(
    table: Mapping[str, Mapping[str, float | None]], seed: str, table_id: str
) -> dict[str, dict[str, float | None]]:
    """``table`` with every column of the paper's ``table_id`` in each row (``None`` where we have
    no number), so that a side-by-side view shows the paper's whole width, then our own columns.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    columns = list(paper_table(seed, table_id).columns)
    return {
        row: {
            **{c: values.get(c) for c in columns},
            **{c: v for c, v in values.items() if c not in columns},
        }
        for row, values in table.items()
    }


def table_4_9_ours(
    main: Sequence[TranslatorScore],
    p_at_1: Mapping[str, float],
    extra: Mapping[str, Sequence[TranslatorScore]],
) -> dict[str, dict[str, float | None]]:
    """Table 4.9 (XNLI Table 3): the paper's three rows from the translator each language's
    TRANSLATE TEST used (``main``) and the P@1 of the dictionary that initialised its lookup table
    (``p_at_1``), keyed by the paper's columns; then the BLEU rows of each ``extra`` translator
    (label -> scores), ours only.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    out = {
        "XX-En BLEU": paper_row({s.language: s.xx_en for s in main}),
        "En-XX BLEU": paper_row({s.language: s.en_xx for s in main}),
        "Word translation P@1": paper_row(p_at_1),
    }
    for label, scores in extra.items():
        out[f"XX-En BLEU, {label} (ours)"] = paper_row({s.language: s.xx_en for s in scores})
        out[f"En-XX BLEU, {label} (ours)"] = paper_row({s.language: s.en_xx for s in scores})
    return out


def translate_test_sentence(
    rows: Mapping[str, Mapping[str, float | None]], exact: Sequence[TranslatorScore]
) -> str:
    """Where TRANSLATE TEST with the exact translator equals the English accuracy and where it does
    not, with the exact translator's BLEU into English on those test sets (below 100 where a
    language merges English sentences).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    acc = rows.get("ttest", {})
    english = acc.get("en")
    langs = [lang for lang, v in acc.items() if lang != "en" and v is not None]
    if english is None or not langs:
        return "no TRANSLATE TEST row with the exact translator in this run."
    bleu = {s.language: s.xx_en for s in exact}
    same = [lang for lang in langs if acc[lang] == english]
    other = [
        f"{lang} ({acc[lang] - english:+.1f}"
        + (f", BLEU into English {bleu[lang]:.1f}" if lang in bleu else "")
        + ")"
        for lang in langs
        if lang not in same
    ]
    out = (
        f"TRANSLATE TEST with the exact translator equals the English accuracy ({english:.1f}) on "
    )
    out += f"{', '.join(same) or 'no language'}"
    return out + (f"; it differs on {', '.join(other)}." if other else ".")


def coverage_sentence(coverage: Mapping[str, float]) -> str:
    """The share of each target vocabulary whose initial vector came from a dictionary translation.

    Book: chapter 6 (XNLI and aligned encoders).
    """
    order = sorted(coverage, key=coverage.get)
    return (
        "initial lookup tables from dictionary translations: "
        + ", ".join(f"{lang} {100 * coverage[lang]:.0f}%" for lang in order)
        + " of the vocabulary (lowest first)."
    )


def unfilled_sentence(wide: pd.DataFrame) -> str:
    """The columns and rows of a side-by-side table (:func:`~xsent_lib.results.paper.side_by_side`)
    that hold no number of ours, in a sentence.
    Book: chapter 6 (XNLI and aligned encoders).
    """
    ours = wide.xs("ours", axis=1, level=1)
    cols = [c for c in ours.columns if ours[c].isna().all()]
    rows = [r for r in ours.index if ours.loc[r].isna().all()]
    return (
        f"no number of ours in the columns {', '.join(cols) or '(none)'}; "
        f"in the rows {', '.join(map(str, rows)) or '(none)'}."
    )
