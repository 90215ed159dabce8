"""Chapter 10's tables and sentences: our rows under the paper's row and column names (Tables 4.12,
4.15, 4.16), the committed pretraining-throughput records, and plain sentences stating what a run
produced.

Book: chapter 10 (Cross-lingual language models, XLM).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from xsent_lib.data.xnli_languages import PAPER_COLUMN
from xsent_lib.eval.xnli import with_average
from xsent_lib.results.paper import paper_table

ENCODERS = "Evaluation of cross-lingual sentence encoders"

ROWS = {
    "mlm": f"{ENCODERS} / XLM (MLM)",
    "mlm+tlm": f"{ENCODERS} / XLM (MLM+TLM)",
    "bilstm": f"{ENCODERS} / Conneau et al. (2018c)",
    "tt": "Machine translation baselines (TRANSLATE-TRAIN) / XLM (MLM+TLM)",
    "ttest": "Machine translation baselines (TRANSLATE-TEST) / XLM (MLM+TLM)",
    "scratch": f"{ENCODERS} / Transformer without pretraining (ours)",
}

SHORT_ROWS = {
    ROWS["mlm"]: "XLM (MLM)",
    ROWS["mlm+tlm"]: "XLM (MLM+TLM)",
    ROWS["bilstm"]: "aligned X-BiLSTM-max (chapter 6; paper: Conneau et al. 2018c)",
    ROWS["tt"]: "TRANSLATE-TRAIN, XLM (MLM+TLM)",
    ROWS["ttest"]: "TRANSLATE-TEST, XLM (MLM+TLM)",
    ROWS["scratch"]: "same Transformer, no pretraining (ours)",
}

PAPER_LM_ROWS = {
    "alone": "Nepali",
    "+ distant": "Nepali + English",
    "+ related": "Nepali + Hindi",
    "+ distant + related": "Nepali + English + Hindi",
}

PAPER_WORD_ROWS = {"Procrustes (MUSE stand-in)": "MUSE", "Concat": "Concat", "XLM": "XLM"}

#: display labels of Table 4.16's rows beside the paper's: the MUSE row holds our supervised
#: stand-in
WORD_ROW_LABELS = {"MUSE": "MUSE | ours: Procrustes (stand-in)", "Concat": "Concat", "XLM": "XLM"}

CHANCE = 100.0 / 3.0


def target_mean(
    accs: Mapping[str, float | None] | None, only: Sequence[str] | None = None
) -> float | None:
    """Mean accuracy over the target languages of ``accs`` (English left out; only those in ``only``
    when given); None when there is none or one of them has no finite number.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    vals = [v for k, v in (accs or {}).items() if k != "en" and (only is None or k in only)]
    if not vals or any(v is None or not np.isfinite(v) for v in vals):
        return None
    return float(np.mean(vals))


def perplexities(rows: Sequence[Mapping[str, Any]]) -> dict[str, float | None]:
    """Table 4.15's perplexities of the small language keyed ``alone`` / ``distant`` / ``related`` /
    ``both`` (None for a row that has none).

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    got = {r["training languages"]: r.get("perplexity") for r in rows}
    names = {"alone": "alone", "distant": "+ distant", "related": "+ related", "both": "+ distant "
             "+ related"}
    return {k: None if got.get(v) is None else float(got[v]) for k, v in names.items()}

def table_4_12_ours(
    rows: Mapping[str, Mapping[str, float | None]], languages: Sequence[str]
) -> dict[str, dict]:
    """Table 4.12 rows (keys of :data:`ROWS`) with the paper's column names and an ``avg`` over
    ``languages``.

    A row that lacks a language (translate-train in ``book``) gets no average.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    out = {}
    for key, accs in rows.items():
        full = with_average(accs, languages)
        out[ROWS[key]] = {
            PAPER_COLUMN.get(k, k) if k != "avg" else "avg": v for k, v in full.items()
        }
    return out


def label_columns(frame: Any, languages: Sequence[str]) -> Any:
    """Relabel a side-by-side table's paper columns with the language of ours under each, e.g. ``"fr
    | xa"``.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    ours = {PAPER_COLUMN.get(lang, lang): lang for lang in languages}
    names = {
        c: f"{c} | {ours[c]}" if c in ours and ours[c] != c else c
        for c in frame.columns.get_level_values(0)
    }
    return frame.rename(columns=names, level=0)


def _short(row: str) -> str:
    """A paper row's label without its group, but with the translate-train / translate-test kind."""
    group, name = row.rsplit(" / ", 1)
    kind = group[group.find("(") + 1 : group.find(")")] if "(" in group else ""
    return f"{kind}, {name}" if kind else name


def table_4_12_wide(
    ours: Mapping[str, Mapping[str, float | None]], languages: Sequence[str]
) -> pd.DataFrame:
    """Table 4.12 whole: every row and column of the paper, ours beside it where we have a number.

    ``ours`` is :func:`table_4_12_ours`'s output; rows are ours first (labelled by
    :data:`SHORT_ROWS`), then the paper's other rows; columns follow the paper's (relabelled by
    :func:`label_columns`), each with ``paper`` and ``ours``.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    paper = paper_table("thesis", "table_4_12")
    rows = [*ours, *(r for r in paper.index if r not in ours)]
    cols = pd.MultiIndex.from_product([list(paper.columns), ["paper", "ours"]])
    wide = pd.DataFrame(
        [
            [
                (paper.at[r, c] if r in paper.index else np.nan)
                if k == "paper"
                else ours.get(r, {}).get(c, np.nan)
                for c, k in cols
            ]
            for r in rows
        ],
        index=[SHORT_ROWS.get(r, _short(r)) for r in rows],
        columns=cols,
    ).astype(float)
    return label_columns(wide, languages)

def lm_table_ours(rows: Sequence[Mapping[str, Any]], label: str) -> dict[str, dict[str, float]]:
    """Our Table 4.15 rows keyed by the paper's row names (column ``label``, e.g. ``"xa
    perplexity"``).

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    return {PAPER_LM_ROWS[r["training languages"]]: {label: float(r["perplexity"])} for r in rows}


def word_table_ours(table: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Our Table 4.16 keyed by the paper's rows and columns (cosine, L2; no SemEval'17 set offline).

    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    return {
        PAPER_WORD_ROWS[k]: {"Cosine sim.": v["cosine"], "L2 dist.": v["L2"]}
        for k, v in table.items()
        if k in PAPER_WORD_ROWS
    }


def throughput_records(folder: str | Path) -> list[dict[str, Any]]:
    """One row per (record, objective) of the committed pretraining-throughput records ``xlm*.json``
    that ``benchmarks/bench_xlm.py`` wrote (on this project's 2-core CPU, and on a lent GPU through
    ``benchmarks/run_on_gpu.sh``): device, model size, objective, input tokens per second, commit
    and date. Empty when the folder holds none.
    Book: chapter 10 (Cross-lingual language models, XLM: pretraining speed).
    """
    rows = []
    for path in sorted(Path(folder).glob("xlm*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        prov, params = record["provenance"], record["provenance"]["params"]
        size = (
            f"d={params['d_model']}, {params['n_layers']} layers, streams of "
            f"{params['stream_len']}, "
            f"batch {params['batch_size']}"
        )
        for row in record["rows"]:
            rows.append(
                {
                    "record": path.name,
                    "device": prov["device"],
                    "size": size,
                    "objective": row["objective"],
                    "tokens/s": row["tokens_per_s"],
                    "parameters": row["parameters"],
                    "commit": prov["commit"],
                    "date": prov["timestamp_utc"][:10],
                    **{k: params[k] for k in ("d_model", "n_layers", "batch_size", "stream_len")},
                }
            )
    return rows


def throughput_sentences(
    rows: Sequence[Mapping[str, Any]],
    *,
    gpu_large: str = "xlm_gpu.json",
    gpu_book: str = "xlm_book_gpu.json",
    cpu_book: str = "xlm_book_cpu1.json",
) -> list[str]:
    """Sentences stating what the committed throughput records (:func:`throughput_records`) show:
    the GPU / one-CPU-thread ratio at the book size (same machine), the large / book ratio on the
    GPU, and the slowest objective of each GPU record. A sentence whose records are missing is left
    out.
    Book: chapter 10 (Cross-lingual language models, XLM: pretraining speed).
    """
    by: dict[str, dict[str, float]] = {}
    params: dict[str, int] = {}
    device: dict[str, str] = {}
    for r in rows:
        by.setdefault(r["record"], {})[r["objective"]] = float(r["tokens/s"])
        params[r["record"]], device[r["record"]] = int(r["parameters"]), str(r["device"])

    def ratios(a: str, b: str) -> str:
        both = [o for o in by[a] if o in by[b]]
        return ", ".join(f"{o} {by[a][o] / by[b][o]:.1f}x" for o in both)

    out = []
    if gpu_book in by and cpu_book in by:
        out.append(
            f"Book size, same machine: the GPU ran {ratios(gpu_book, cpu_book)} the input tokens "
            f"per second "
            "of one CPU thread."
        )
    if gpu_large in by and gpu_book in by:
        out.append(
            f"On the GPU the large model ({params[gpu_large] / params[gpu_book]:.0f}x the book "
            f"model's "
            f"parameters) ran {ratios(gpu_large, gpu_book)} the book model's tokens per second."
        )
    for name in sorted(by):
        if device[name].startswith("cuda") and len(by[name]) > 1:
            slow = min(by[name], key=by[name].get)
            rest = ", ".join(f"{o} {v:,.0f}" for o, v in by[name].items() if o != slow)
            out.append(
                f"{name}: slowest objective {slow} ({by[name][slow]:,.0f} tokens/s; {rest})."
            )
    return out


#: compute-optimal training: about this many training tokens per parameter (Hoffmann et al., 2022)
TOKENS_PER_PARAMETER = 20

#: passes over the same text that still count almost as new text (Muennighoff et al., 2023)
USEFUL_PASSES = 4


def scale_sentences(rows: Sequence[Mapping[str, Any]], profile: str) -> list[str]:
    """Sentences on one plan's :func:`pretraining_scale` rows: size, tokens, passes, the model size
    its text supports by :data:`TOKENS_PER_PARAMETER` and :data:`USEFUL_PASSES`, and the estimated
    H100 time.

    Book: chapter 10 (Cross-lingual language models, XLM: the size of each profile).
    """
    out = []
    for r in rows:
        supported = r["tokens of text"] * USEFUL_PASSES / TOKENS_PER_PARAMETER
        ratio = r["parameters"] / supported
        out.append(
            f"{profile}, {r['run']}: {r['parameters']:,} parameters, {r['steps']:,} steps "
            f"processing "
            f"{r['tokens processed']:,.0f} tokens ({r['processed / parameter']:.1f} per parameter) "
            f"from a text "
            f"of {r['tokens of text']:,.0f} tokens ({r['text / parameter']:.2f} per parameter), "
            f"each seen about "
            f"{r['passes over the text']:.1f} times. {USEFUL_PASSES} passes at "
            f"{TOKENS_PER_PARAMETER} tokens "
            f"per parameter would suit about {supported:,.0f} parameters: the model is "
            f"{ratio if ratio >= 1 else 1 / ratio:.1f}x {'larger' if ratio >= 1 else 'smaller'}."
        )
    timed = [r for r in rows if r["H100 estimate (min)"] is not None]
    if timed:
        total = sum(r["H100 estimate (min)"] for r in timed)
        records = sorted({str(r["H100 record"]) for r in timed})
        out.append(
            f"Estimate, not a measurement: {profile}'s pretraining runs "
            f"({'; '.join(r['run'] for r in timed)}) "
            f"would take about {total:.0f} minutes on one H100 (tokens processed / input tokens "
            f"per second of "
            f"the committed records {'; '.join(records)}; evaluations and data preparation not "
            f"included)."
        )
    return out


def run_summary(
    rows: Mapping[str, Mapping[str, float | None]],
    lm_rows: Mapping[str, Sequence[Mapping[str, Any]]],
    words: Mapping[str, Mapping[str, float]] | None,
) -> list[str]:
    """Plain sentences stating what the run produced, for the discussion: each Table 4.12 row (keys
    of :data:`ROWS`), TLM's change of the zero-shot mean, each Table 4.15 (``lm_rows`` by name) and
    each space of one Table 4.16 (``words``) against its random pairs.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    out = []
    names = {"scratch": "no pretraining", "mlm": "XLM (MLM)", "mlm+tlm": "XLM (MLM+TLM)",
             "bilstm": "aligned BiLSTM-max", "tt": "translate-train", "ttest": "translate-test"}
    means = {}
    for key, name in names.items():
        accs = {lang: v for lang, v in rows.get(key, {}).items() if lang != "en" and v is not None}
        if accs:
            means[key] = float(np.mean(list(accs.values())))
            langs = ", ".join(f"{k} {v:.1f}" for k, v in accs.items())
            out.append(f"{name}: English {rows[key].get('en'):.1f}; target languages {langs} "
                       f"(mean {means[key]:.1f}; chance {CHANCE:.1f}).")
    if "mlm" in means and "mlm+tlm" in means:
        out.append(f"TLM changed the zero-shot mean by {means['mlm+tlm'] - means['mlm']:+.1f} "
                   f"points.")
    for label, table in lm_rows.items():
        ppl = {r["training languages"]: float(r["perplexity"]) for r in table}
        a, d, r = (ppl.get(k) for k in ("alone", "+ distant", "+ related"))
        if None not in (a, d, r):
            out.append(f"{label}: perplexity {a:.1f} alone, {d:.1f} with the distant language "
                       f"({d - a:+.1f}), {r:.1f} with the related one ({r - a:+.1f}).")
    for space, got in (words or {}).items():
        c, r = got.get("cosine"), got.get("cosine of random pairs")
        if c is not None and r is not None:
            out.append(f"{space}: translations {c:.3f} vs random pairs {r:.3f} in cosine "
                       f"({c - r:+.3f}).")
    return out
