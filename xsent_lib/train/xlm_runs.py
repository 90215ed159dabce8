"""Chapter 10's training protocols on top of :mod:`xsent_lib.train.xlm`: the shared vocabulary and
corpus of a plan, one pretraining run, zero-shot and translate-train fine-tuning on XNLI, the
vocabulary table of the sampling exponent, and Table 4.15's low-resource language models with their
cost.

Book: chapter 10 (Cross-lingual language models, XLM).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import NLIData
from xsent_lib.data.xnli import XNLIBenchmark
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.lm import language_sampling_probs
from xsent_lib.train.xlm import XLMConfig, XLMRun, build_xlm, clm_perplexity, pretrain_xlm
from xsent_lib.train.xlm_corpus import (
    LMCorpus,
    build_lm_corpus,
    shared_vocabulary,
    vocabulary_stats,
)
from xsent_lib.train.xlm_xnli import FinetuneConfig, FinetuneRun, finetune_xnli, xlm_accuracy

LM_ROWS = ("alone", "+ distant", "+ related", "+ distant + related")


class XLMSizes(Protocol):
    """The settings these protocols read from a chapter's plan (e.g. ``recipes.xlm.XLMPlan``).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    @property
    def stream_len(self) -> int: ...
    @property
    def heldout_rows(self) -> int: ...
    @property
    def pretrain(self) -> XLMConfig: ...
    @property
    def finetune(self) -> FinetuneConfig: ...
    @property
    def translate_train(self) -> tuple[str, ...]: ...


@dataclass(frozen=True, kw_only=True)
class LMTablePlan:
    """Table 4.15's setting: the low-resource language, a related and a distant one, sentence
    counts, CLM config.

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """

    low: str
    related: str
    distant: str
    n_low: int
    n_other: int
    vocab_size: int
    config: XLMConfig


def vocabulary_table(
    corpora: Mapping[str, Sequence[str]],
    vocab_size: int,
    alphas: Sequence[float],
    workdir: str | Path,
    seed: int,
) -> list[dict[str, Any]]:
    """For each alpha: the sampling share ``q_i`` of each language and how finely the learned
    vocabulary cuts it.

    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    langs = list(corpora)
    rows = []
    for alpha in alphas:
        q = language_sampling_probs([len(corpora[x]) for x in langs], alpha)
        pipe = shared_vocabulary(corpora, vocab_size, workdir, alpha=alpha, seed=seed)
        stats = vocabulary_stats(pipe, corpora)
        for lang, share in zip(langs, q):
            rows.append(
                {
                    "alpha": alpha,
                    "language": lang,
                    "sentences": len(corpora[lang]),
                    "q_i": float(share),
                    **stats[lang],
                }
            )
    return rows


def lm_corpus(
    mono: Mapping[str, Sequence[str]],
    bitext: Mapping[tuple[str, str], tuple[Sequence[str], Sequence[str]]],
    vocab_size: int,
    plan: XLMSizes,
    workdir: str | Path,
    seed: int,
) -> LMCorpus:
    """The shared vocabulary (alpha 0.5, on the monolingual text) and the encoded streams and
    bitext.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    pipe = shared_vocabulary(mono, vocab_size, workdir, alpha=0.5, seed=seed)
    return build_lm_corpus(
        pipe,
        mono,
        bitext,
        stream_len=plan.stream_len,
        heldout_rows=plan.heldout_rows,
        max_pair_len=plan.pretrain.max_len // 2,
    )


def pretrain(
    corpus: LMCorpus,
    config: XLMConfig,
    objective: str,
    *,
    device: str | torch.device,
    seed: int,
    checkpoint: str | Path | None = None,
) -> XLMRun:
    """Pretrain one model with ``objective`` (``config``'s sizes), on one CPU thread when it is
    small.

    Book: chapter 10 (Cross-lingual language models, XLM: pretraining).
    """
    small = torch.device(device).type == "cpu" and config.d_model <= 256
    with single_thread(small):
        return pretrain_xlm(
            corpus,
            replace(config, objective=objective),
            device=device,
            seed=seed,
            checkpoint_path=checkpoint,
        )


def model_parameters(vocab_size: int, config: XLMConfig, n_langs: int) -> int:
    """Parameters of the Transformer :func:`~xsent_lib.train.xlm.build_xlm` makes for ``config``
    (counted on torch's meta device: nothing is allocated). Book: chapter 10 (Cross-lingual language
    models, XLM).
    """
    with torch.device("meta"):
        model = TransformerSentenceEncoder(
            vocab_size,
            d_model=config.d_model,
            n_heads=config.n_heads,
            n_layers=config.n_layers,
            d_ff=config.d_ff,
            dropout=config.dropout,
            max_len=config.max_len,
            n_langs=n_langs,
            pooling="first",
        )
    return sum(p.numel() for p in model.parameters())


def zero_shot(
    run: XLMRun | LMCorpus,
    bench: XNLIBenchmark,
    plan: XLMSizes,
    *,
    device: str | torch.device,
    seed: int,
) -> tuple[FinetuneRun, dict[str, float]]:
    """Fine-tune on English NLI (English dev for model selection), then test every language with its
    id.

    Given an :class:`LMCorpus` instead of a pretrained run, the same Transformer is fine-tuned from
    a random initialisation (the "no pretraining" control row).
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if isinstance(run, LMCorpus):
        corpus, encoder = run, build_xlm(run, plan.pretrain, seed)
    else:
        corpus, encoder = run.corpus, run.model
    ids = corpus.lang_ids
    with single_thread(torch.device(device).type == "cpu"):
        ft = finetune_xnli(
            encoder,
            bench.train,
            bench.dev["en"],
            lang_id=ids["en"],
            config=plan.finetune,
            device=device,
            seed=seed,
        )
        accs = {
            lang: xlm_accuracy(ft.model, bench.test[lang], ids[lang], device=device)
            for lang in bench.languages
        }
    return ft, accs


def translate_train(
    run: XLMRun,
    bench: XNLIBenchmark,
    lang: str,
    plan: XLMSizes,
    *,
    device: str | torch.device,
    seed: int,
) -> float:
    """TRANSLATE-TRAIN: fine-tune on the English training pairs translated into ``lang`` (the
    benchmark's translator), select on ``lang``'s dev set, test on ``lang``.
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if bench.translate is None:
        raise ValueError("translate-train needs a translator; this benchmark has none.")
    moved = NLIData(
        bench.translate(list(bench.train.premises), "en", lang),
        bench.translate(list(bench.train.hypotheses), "en", lang),
        np.asarray(bench.train.labels),
    )
    lid = run.corpus.lang_ids[lang]
    with single_thread(torch.device(device).type == "cpu"):
        ft = finetune_xnli(
            run.model,
            moved,
            bench.dev[lang],
            lang_id=lid,
            config=plan.finetune,
            device=device,
            seed=seed,
        )
        return xlm_accuracy(ft.model, bench.test[lang], lid, device=device)


def translate_train_languages(plan: XLMSizes, bench: XNLIBenchmark, *, real: bool) -> list[str]:
    """The languages translate-train runs on. Synthetic world: the plan's ``translate_train``
    languages that the benchmark has (the world's exact translations). Real XNLI (``real``): every
    target language of ``bench``, since :func:`real_xnli_data` keeps only the languages whose
    XNLI-MT training file it loaded, and those machine translations of the English training pairs
    are what translate-train reads.
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    targets = [lang for lang in bench.languages if lang != "en"]
    if bench.translate is None:
        return []
    return targets if real else [lang for lang in plan.translate_train if lang in targets]


def translate_test(
    ft: FinetuneRun, corpus: LMCorpus, bench: XNLIBenchmark, lang: str, *,
    device: str | torch.device
) -> float:
    """TRANSLATE-TEST: ``lang``'s test pairs translated into English (the benchmark's translator),
    read by the model fine-tuned on English (``ft``) with the English language id.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if bench.translate is None:
        raise ValueError("translate-test needs a translator; this benchmark has none.")
    test = bench.test[lang]
    moved = NLIData(
        bench.translate(list(test.premises), lang, "en"),
        bench.translate(list(test.hypotheses), lang, "en"),
        np.asarray(test.labels),
    )
    with single_thread(torch.device(device).type == "cpu"):
        return xlm_accuracy(ft.model, moved, corpus.lang_ids["en"], device=device)


def translate_test_languages(bench: XNLIBenchmark, *, real: bool) -> list[str]:
    """The languages translate-test runs on: every target language of the synthetic world (its
    translator knows the test sets in both directions); none with the real XNLI, whose layout has no
    translations of the test sets into English.

    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if real or bench.translate is None:
        return []
    return [lang for lang in bench.languages if lang != "en"]

def _lm_combos(table: LMTablePlan) -> dict[str, list[str]]:
    """The training languages of each row of Table 4.15 (:data:`LM_ROWS`), the low-resource language
    first."""
    low, rel, dist = table.low, table.related, table.distant
    return dict(zip(LM_ROWS, ([low], [low, dist], [low, rel], [low, dist, rel])))


def lm_table_cost(table: LMTablePlan, stream_len: int) -> dict[str, int]:
    """What :func:`lm_table` trains for ``table``: its CLMs, their training steps in all (a row with
    ``k`` languages trains ``k`` times ``table.config.steps``) and the input pieces those steps
    process (``batch_size`` streams of ``stream_len`` pieces a step). Held-out scoring and the
    vocabulary not included.
    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    if not isinstance(stream_len, int) or stream_len < 2:
        raise ValueError(
            f"stream_len must be an integer >= 2 (pieces per stream), got {stream_len!r}."
        )
    steps = sum(table.config.steps * len(use) for use in _lm_combos(table).values())
    return {
        "models": len(LM_ROWS),
        "steps": steps,
        "pieces processed": steps * table.config.batch_size * stream_len,
    }


def lm_table(
    corpora: Mapping[str, Sequence[str]],
    table: LMTablePlan,
    heldout_text: Sequence[str],
    workdir: str | Path,
    *,
    stream_len: int,
    device: str | torch.device,
    seed: int,
) -> list[dict[str, Any]]:
    """Perplexity of ``table.low`` (on ``heldout_text``) for CLMs trained on it alone and with the
    other languages.

    One shared vocabulary (alpha 0.5, all three languages) serves every row, so the perplexities are
    per the same pieces. Every row has the same model size and gives the low-resource language the
    same number of batches (``table.config.steps``): the batch language is drawn uniformly and a row
    with ``k`` languages trains ``k`` times as many steps, so what changes between rows is only the
    text added on top. Each row also says which share of the low-resource language's pieces occur in
    the added text (the paper: Nepali and Hindi share more than 80% of their tokens); with both
    added, the larger share; and its ``steps`` (:func:`lm_table_cost` sums them).
    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    low, rel, dist = table.low, table.related, table.distant
    pipe = shared_vocabulary(
        {x: corpora[x] for x in (low, dist, rel)}, table.vocab_size, workdir, alpha=0.5, seed=seed
    )
    langs = [low, dist, rel]
    heldout = build_lm_corpus(
        pipe, {low: list(heldout_text)}, languages=langs, stream_len=stream_len, heldout_rows=1
    ).streams[low]
    combos = _lm_combos(table)
    seen = {x: set(np.concatenate(pipe.encode(list(corpora[x]))).tolist()) for x in langs}
    shared = {x: 100.0 * len(seen[low] & seen[x]) / len(seen[low]) for x in langs}
    rows = []
    for name, use in combos.items():
        corpus = build_lm_corpus(
            pipe,
            {x: corpora[x] for x in use},
            languages=langs,
            stream_len=stream_len,
            heldout_rows=2,
        )
        # equal exposure: languages drawn uniformly and len(use) times the steps, so the
        # low-resource language
        # gets the same number of batches in every row and the other languages come on top
        config = replace(
            table.config,
            alpha=0.0,
            steps=table.config.steps * len(use),
            eval_every=table.config.eval_every * len(use),
        )
        run = pretrain(corpus, config, "clm", device=device, seed=seed)
        rows.append(
            {
                "training languages": name,
                "languages": " + ".join(use),
                "steps": config.steps,
                "perplexity": clm_perplexity(run.model, corpus, low, streams=heldout),
                f"{low} pieces also in the added text (%)": max(
                    (shared[x] for x in use[1:]), default=None
                ),
                "seconds": run.seconds,
            }
        )
    return rows
