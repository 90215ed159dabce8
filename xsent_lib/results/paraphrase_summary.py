"""Chapter 8's run in sentences: what the tables of one run say, and the speed targets judged on its
numbers.

Every sentence is computed from the run's numbers; nothing is hand-written.
Book: chapter 8 (Paraphrastic embeddings from bitext).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

#: "comparable" en->fr retrieval for the 500x-USE target: SP's P@1 at least USE's minus this many
#: points
P1_TOLERANCE = 5.0


def cost_split(target: Mapping[str, Any], key: str) -> str:
    """Where SP's end-to-end time per sentence goes at ``key`` threads, from the parts of
    :func:`~xsent_lib.eval.encoder_speed.speed_target` (empty when the run lacks them).

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    tok, model = (
        target.get(f"SP {part} microseconds/sentence, {key}") for part in ("tokenisation", "model")
    )
    if tok is None or model is None:
        return ""
    total = 1e6 / target[f"SP sentences/s, {key}"]
    main = "tokenisation" if tok >= model else "the model"
    noisy = (
        " (the parts, timed apart, add up to more than the whole: these timings are disturbed by "
        "other work)"
        if tok + model > 1.2 * total
        else ""
    )
    return (
        f"of its {total:.1f} microseconds per sentence, tokenisation alone takes {tok:.1f} and the "
        "model "
        f"alone {model:.1f} ({100 * tok / total:.0f}% and {100 * model / total:.0f}%): {main} "
        f"dominates{noisy}"
    )


def speed_target_verdicts(
    target: Mapping[str, Any],
    targets: tuple[float, float] = (300_000.0, 500.0),
    *,
    p1_tolerance: float = P1_TOLERANCE,
) -> list[str]:
    """The issue's two speed targets judged on :func:`~xsent_lib.eval.encoder_speed.speed_target`'s
    numbers (2 threads), one sentence each.

    (1) SP end to end at least ``targets[0]`` sentences/s. (2) SP at least ``targets[1]`` times
    USE-multilingual *at comparable en->fr retrieval*: met only when the ratio is reached **and**
    SP's P@1 is at least USE's minus ``p1_tolerance`` points; both P@1 are printed. A missed target
    gets its computed reason: where SP's time goes (tokenisation against the model, timed apart),
    the rate SP would need, or the P@1 gap. A target whose numbers the run lacks (USE not in the
    data cache) gets no sentence.
    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    out = []
    key = "2 threads"
    rate = target.get(f"SP sentences/s, {key}")
    if rate is not None:
        met = rate >= targets[0]
        split = cost_split(target, key)
        cpu = target.get(f"SP CPU microseconds/sentence, {key}", float("nan"))
        out.append(
            f"SP end to end on 2 threads: {rate:,.0f} sentences/s (target {targets[0]:,.0f}: "
            + ("met" if met else "not met")
            + f"), {cpu:.1f} CPU microseconds per sentence; load average "
            f"{target['load before']:.1f} to {target['load after']:.1f}."
            + ("" if met or not split else f" Why: {split}.")
        )
    if f"SP / USE, {key}" in target:
        ratio = target[f"SP / USE, {key}"]
        sp_p1, use_p1 = (
            target.get("SP P@1 en->fr", float("nan")),
            target.get("USE P@1 en->fr", float("nan")),
        )
        fast = ratio >= targets[1]
        if np.isnan(sp_p1) or np.isnan(use_p1):
            verdict, close = "not testable: P@1 of both encoders is needed", None
        else:
            close = sp_p1 >= use_p1 - p1_tolerance
            verdict = "met" if fast and close else "not met"
        line = (
            f"SP / USE on 2 threads: {ratio:.0f}x (target {targets[1]:.0f}x at comparable P@1, "
            "read as SP's en->fr "
            f"P@1 at least USE's minus {p1_tolerance:g} points: {verdict}); en->fr P@1 SP "
            f"{sp_p1:.1f}, "
            f"USE {use_p1:.1f}."
        )
        why = []
        if not fast:
            use_rate = target[f"USE sentences/s, {key}"]
            split = cost_split(target, key)
            why.append(
                f"USE encodes {use_rate:,.0f} sentences/s, so {targets[1]:.0f}x needs "
                f"{targets[1] * use_rate:,.0f} from SP, which reached {rate:,.0f}"
                + (f"; {split}" if split else "")
            )
        if close is False:
            why.append(
                f"SP's P@1 is {use_p1 - sp_p1:.1f} points below USE's, more than the "
                f"{p1_tolerance:g} allowed"
            )
        out.append(line + (" Why: " + "; ".join(why) + "." if why else ""))
    return out


def run_summary(
    *,
    table1: Mapping[str, Mapping[str, float]],
    table2: Mapping[str, Mapping[str, float]],
    ablation: Mapping[int, Mapping[str, float]],
    speed: Sequence[Mapping[str, Any]],
    training: Mapping[str, Sequence[float]],
    probe: Mapping[str, Mapping[str, float]],
    target: Mapping[str, Any],
    lang_rows: Sequence[Mapping[str, Any]],
    overlap_rho: Mapping[str, Mapping[str, float | None]],
    sp: str,
    sp_large: str,
    blstm: str,
    random_sp: str,
    sts_col: str,
    mining_col: str,
    xsts_col: str,
    targets: tuple[float, float] = (300_000.0, 500.0),
    averaging: Sequence[str] = (),
    random_negatives: Mapping[str, float] | None = None,
) -> list[str]:
    """Plain sentences stating what the run produced, for the chapter's discussion (nothing is
    hand-written).

    ``training`` maps an encoder label to its per-epoch losses; ``probe`` is the chapter's
    :func:`~xsent_lib.eval.paraphrase_study.retrieval_probe` table; ``targets`` are the issue's
    speed targets (SP sentences/s on 2 threads, SP / USE ratio), judged by
    :func:`speed_target_verdicts`. ``averaging`` names the averaging encoders of ``speed`` whose
    share of time outside the model (text to vector against model only) is reported;
    ``random_negatives`` the scores of the in-batch random-negative run, shown beside the ablation.
    Book: chapter 8 (Paraphrastic embeddings from bitext).
    """
    out = []
    text_1 = {
        r["encoder"]: r["sentences/s"]
        for r in speed
        if r["regime"] == "text to vector" and r["threads"] == 1
    }
    text_2 = {
        r["encoder"]: r["sentences/s"]
        for r in speed
        if r["regime"] == "text to vector" and r["threads"] == 2
    }
    if sp in text_1:
        order = sorted(text_1, key=text_1.get)
        out.append("Text to vector on 1 thread, slowest to fastest: " + ", ".join(order) + ".")
        ratios = [
            f"{text_1[sp] / text_1[o]:.0f}x {o}"
            for o in order
            if o != sp and text_1[o] < text_1[sp]
        ]
        if ratios:
            out.append(f"{sp} is " + ", ".join(ratios) + " as fast.")
    model_1 = {
        r["encoder"]: r["sentences/s"]
        for r in speed
        if r["regime"] == "model only" and r["threads"] == 1
    }
    shares = {
        e: 100 * (1 - text_1[e] / model_1[e]) for e in averaging if e in text_1 and e in model_1
    }
    if shares:
        most = [e for e, v in shares.items() if v > 50]
        out.append(
            "Share of the text-to-vector time spent outside the model (tokenisation and batching), "
            "1 thread, "
            "batches of 128: "
            + ", ".join(f"{e} {v:.0f}%" for e, v in shares.items())
            + f"; more than half for {len(most)} of {len(shares)} averaging encoders."
        )
    slower = [e for e in text_2 if e in text_1 and text_2[e] < text_1[e]]
    out.append(
        f"{len(slower)} of {len(text_2)} encoders were slower with 2 threads than with 1 in the "
        "batches-of-128 "
        "table" + (f" ({', '.join(slower)})." if slower else ".")
    )
    gap = table1[sp][mining_col] - table1[random_sp][mining_col]
    out.append(
        f"Mining F1: trained {sp} {table1[sp][mining_col]:.1f}, untrained {random_sp} "
        f"{table1[random_sp][mining_col]:.1f} ({gap:+.1f})."
    )
    best_mine = max(table1, key=lambda k: table1[k][mining_col])
    best_sts = max(table1, key=lambda k: table1[k][sts_col])
    out.append(
        f"Best miner: {best_mine} ({table1[best_mine][mining_col]:.1f}); best English STS: "
        f"{best_sts} "
        f"({table1[best_sts][sts_col]:.1f}); untrained {random_sp} STS "
        f"{table1[random_sp][sts_col]:.1f}."
    )
    best_x = max(table2, key=lambda k: table2[k][xsts_col])
    randoms = {k: v[xsts_col] for k, v in table2.items() if k.startswith("Random")}
    out.append(
        f"Cross-lingual STS ({xsts_col}): best {best_x} {table2[best_x][xsts_col]:.1f}; the random "
        "encoders "
        f"{min(randoms.values()):.1f} to {max(randoms.values()):.1f}."
        if randoms
        else f"Cross-lingual STS ({xsts_col}): best {best_x} {table2[best_x][xsts_col]:.1f}."
    )
    loss = training[blstm]
    learned = all(table1[blstm][c] > table1[random_sp][c] for c in (sts_col, mining_col))
    out.append(
        f"{blstm}: training loss {loss[0]:.3f} in the first epoch, {loss[-1]:.3f} in the last "
        "(delta = 0.4); "
        f"STS {table1[blstm][sts_col]:.1f} and mining F1 {table1[blstm][mining_col]:.1f}, which "
        + ("beat" if learned else "do not both beat")
        + f" the untrained {random_sp} "
        f"({table1[random_sp][sts_col]:.1f}, {table1[random_sp][mining_col]:.1f})."
    )
    for name, row in probe.items():
        out.append(
            f"Probe, {name}: cosine of unrelated sentences {row['cos unrelated']:.2f}, of "
            "translations "
            f"{row['cos translation']:.2f}, P@1 {row['P@1']:.1f}."
        )
    sizes = sorted(ablation)
    rand = random_negatives or {}
    out.append(
        "Mega-batch ablation (hardest negatives), mining F1 by size: "
        + ", ".join(f"{k}: {ablation[k][mining_col]:.1f}" for k in sizes)
        + (f", in-batch random {rand[mining_col]:.1f}" if mining_col in rand else "")
        + "; STS: "
        + ", ".join(f"{k}: {ablation[k][sts_col]:.1f}" for k in sizes)
        + (f", in-batch random {rand[sts_col]:.1f}" if sts_col in rand else "")
        + "."
    )
    diffs = {c: table1[sp_large][c] - table1[sp][c] for c in (sts_col, mining_col)}
    out.append(
        f"{sp_large} minus {sp}: " + ", ".join(f"{c} {v:+.1f}" for c, v in diffs.items()) + "."
    )
    if lang_rows:
        for col, rho in overlap_rho.items():
            vals = ", ".join(f"{k} {v:.0f}" for k, v in rho.items() if v is not None)
            if vals:
                out.append(f"Spearman rho x100 against {col} over {len(lang_rows)} rows: {vals}.")
        best = max(lang_rows, key=lambda r: r["mining F1"])
        out.append(
            f"Highest mining F1 in the language study: {best['pair']} with {best['vocab']} pieces "
            f"({best['mining F1']:.1f})."
        )
    out.extend(speed_target_verdicts(target, targets))
    return out
