"""Chapter 10's measurements of pretrained XLMs: held-out MLM loss against a context-free predictor,
the translation pairs of Table 4.16 in three spaces, the inputs of Figure 4.6 and the masking
shares, and the size of a plan's pretraining runs in parameters, tokens and estimated GPU time.

Book: chapter 10 (Cross-lingual language models, XLM).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from xsent_lib.align.procrustes import procrustes
from xsent_lib.data.wordvecs import train_wordvecs
from xsent_lib.data.xlm_text import TextSizes, real_text_sizes
from xsent_lib.eval.word_pairs import single_piece_pairs, translation_distances
from xsent_lib.losses.lm import frequency_smoothed_weights
from xsent_lib.train.xlm import (
    XLMConfig,
    XLMRun,
    heldout_loss,
    language_unigram_entropy,
    lm_batches,
    mask_batch,
    tlm_batch,
    unigram_entropy,
)
from xsent_lib.train.xlm_corpus import MASK_TOKEN, LMCorpus
from xsent_lib.train.xlm_runs import model_parameters


class ScaleSizes(TextSizes, Protocol):
    """The sizes :func:`pretraining_scale` reads from a chapter's plan (e.g.
    ``recipes.xlm.XLMPlan``).

    Book: chapter 10 (Cross-lingual language models, XLM: the size of each profile).
    """

    @property
    def pretrain(self) -> XLMConfig: ...
    @property
    def real_pretrain(self) -> XLMConfig | None: ...
    @property
    def vocab_size(self) -> int: ...
    @property
    def real_vocab(self) -> int: ...
    @property
    def stream_len(self) -> int: ...


def curve(run: XLMRun) -> dict[str, list[float]]:
    """Held-out loss against steps of a run, for :func:`xsent_lib.viz.xlm.pretraining_curves`.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    return {"steps": list(run.history.steps), "loss": [float(x) for x in run.history.dev]}


@dataclass(frozen=True)
class MLMCheck:
    """Held-out MLM loss beside the loss of a context-free predictor that knows the language (nats).

    ``heldout_mlm_loss``: the run's final held-out loss averaged over languages, on the positions
    whose input was ``<mask>`` (the input says nothing of the answer there), their targets drawn
    with the training weights (``count ** -target_exponent``). ``unigram_entropy``: the entropy of
    that target distribution in each language, averaged the same way. For reference, not for
    comparison: ``heldout_mlm_loss_every_position`` (the 10% kept show the answer) and
    ``pooled_unigram_entropy`` (all languages pooled, the same weights; knowing the language beats
    it).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    heldout_mlm_loss: float
    unigram_entropy: float
    heldout_mlm_loss_every_position: float
    pooled_unigram_entropy: float


def mlm_vs_unigram(run: XLMRun, seed: int = 0) -> MLMCheck:
    """The :class:`MLMCheck` of a pretrained run, like with like: the per-language entropies come
    from :func:`~xsent_lib.train.xlm.language_unigram_entropy` with the run's target weights.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    corpus, exponent = run.corpus, run.config.target_exponent
    langs = list(run.heldout)
    per_language = language_unigram_entropy(corpus, exponent)
    counts = corpus.pipeline.vocab.counts
    pooled = (
        torch.as_tensor(np.asarray(counts, dtype=np.float64))
        * frequency_smoothed_weights(counts, exponent, corpus.special_ids).double()
    )
    every = [
        heldout_loss(
            run.model, corpus, "mlm", lang, seed=seed, score="selected", target_exponent=exponent
        )
        for lang in langs
    ]
    return MLMCheck(
        heldout_mlm_loss=float(np.mean([run.heldout[lang] for lang in langs])),
        unigram_entropy=float(np.mean([per_language[lang] for lang in langs])),
        heldout_mlm_loss_every_position=float(np.mean(every)),
        pooled_unigram_entropy=unigram_entropy(pooled.numpy(), corpus.special_ids),
    )


def word_table(
    run: XLMRun,
    texts: Mapping[str, Sequence[str]],
    src: str,
    tgt: str,
    train_pairs: Sequence[tuple[str, str]],
    test_pairs: Sequence[tuple[str, str]],
    *,
    dim: int,
    workdir: str | Path,
    seed: int,
) -> dict[str, dict[str, float]]:
    """Table 4.16: cosine and L2 between test translation pairs in three spaces.

    ``XLM``: rows of the pretrained input lookup table (pairs whose words are single pieces).
    ``Procrustes`` (our MUSE stand-in, supervised by ``train_pairs``): skip-gram vectors trained per
    language on ``texts`` and mapped with Procrustes. ``Concat``: one skip-gram model on both texts
    together (Lample et al. 2018a). Every space is scored on the same test pairs (those every space
    covers), after centring it.
    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    workdir = Path(workdir)
    vec = {
        lang: train_wordvecs(
            lang,
            sentences=list(texts[lang]),
            dim=dim,
            min_count=2,
            epochs=5,
            seed=seed,
            cache_dir=workdir,
        )
        for lang in (src, tgt)
    }
    both = train_wordvecs(
        f"{src}+{tgt}",
        sentences=[*texts[src], *texts[tgt]],
        dim=dim,
        min_count=2,
        epochs=5,
        seed=seed,
        cache_dir=workdir,
    )
    # every space is centred (its mean vector subtracted, MUSE's "center" normalisation): the
    # direction tiny
    # corpora give every vector must not count as closeness between translations
    for v in (*vec.values(), both):
        v.vectors = v.vectors - v.vectors.mean(0, keepdims=True)
    table = run.model.token_embedding.weight.detach().cpu().numpy()[len(run.corpus.special_ids) :]
    table = np.concatenate(
        [
            np.zeros((len(run.corpus.special_ids), table.shape[1]), table.dtype),
            table - table.mean(0, keepdims=True),
        ]
    )
    xlm_pairs = {
        (a, b): (i, j) for a, b, i, j in single_piece_pairs(run.corpus.pipeline, test_pairs)
    }
    def inside(a: str, b: str) -> bool:
        return all(w in v.word2id for w, v in ((a, vec[src]), (b, vec[tgt]), (a, both), (b, both)))

    test = [p for p in xlm_pairs if inside(*p)]
    train = [(a, b) for a, b in train_pairs if a in vec[src].word2id and b in vec[tgt].word2id]
    if len(test) < 2 or len(train) < 2:
        return {"note": {"n": len(test)}}
    W = procrustes(
        np.stack([vec[src].vectors[vec[src].word2id[a]] for a, _ in train]),
        np.stack([vec[tgt].vectors[vec[tgt].word2id[b]] for _, b in train]),
    )
    X = lambda v, side: np.stack([v.vectors[v.word2id[p[side]]] for p in test])  # noqa: E731
    return {
        "Procrustes (MUSE stand-in)": translation_distances(X(vec[src], 0) @ W.T, X(vec[tgt], 1)),
        "Concat": translation_distances(X(both, 0), X(both, 1)),
        "XLM": translation_distances(
            table[[xlm_pairs[p][0] for p in test]], table[[xlm_pairs[p][1] for p in test]]
        ),
    }


def figure_panels(
    corpus: LMCorpus,
    config: XLMConfig,
    seed: int,
    n_tokens: int = 18,
    pair: tuple[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The two panels of Figure 4.6 from real batches of ``corpus``: an MLM stream and a TLM pair.

    The MLM panel shows the first ``n_tokens`` of a masked stream; the TLM panel the first pair of a
    masked TLM batch of ``pair`` (default the first bitext pair), source then translation with
    positions reset.
    Book: chapter 10 (Cross-lingual language models, XLM: Figure 4.6).
    """
    vocab = corpus.pipeline.vocab
    names = {i: lang for lang, i in corpus.lang_ids.items()}
    # 30% masking for the picture only, so that a short window shows several predictions
    shown = replace(config, mask_prob=0.3)

    def panel(batch: Mapping[str, torch.Tensor], title: str, width: int) -> dict[str, Any]:
        row = batch["inputs"][0, :width]
        targets = batch["targets"][0, :width]
        positions = (
            batch["positions"][0, :width] if "positions" in batch else torch.arange(len(row))
        )
        langs = batch["langs"][0, :width]
        return {
            "title": title,
            "tokens": vocab.tokens_of(row.tolist()),
            "targets": [
                vocab.itos[int(t)] if bool(s) else None
                for t, s in zip(targets, batch["selected"][0, :width])
            ],
            "positions": [int(p) for p in positions],
            "langs": [names[int(x)] for x in langs],
        }

    mlm = lm_batches(corpus, replace(shown, objective="mlm"), 1, seed)[0]
    out = [
        panel(
            mlm,
            f"Masked language modelling (MLM): a stream of {corpus.stream_len} pieces, first "
            f"{n_tokens} shown",
            n_tokens,
        )
    ]
    if corpus.pairs:
        pair = pair or next(iter(corpus.pairs))
        pb = tlm_batch(corpus, pair, [0])
        weights = frequency_smoothed_weights(
            vocab.counts, shown.target_exponent, corpus.special_ids
        )
        gen = torch.Generator().manual_seed(seed)
        tlm = mask_batch(pb.token_ids, pb.lengths, corpus, weights, shown, gen)
        tlm.update(langs=pb.langs, positions=pb.positions)
        out.append(
            panel(
                tlm,
                f"Translation language modelling (TLM): a {pair[0]}-{pair[1]} pair, positions "
                f"reset "
                "at the translation",
                int(pb.lengths[0]),
            )
        )
    return out


def mask_statistics(
    corpus: LMCorpus, config: XLMConfig, seed: int, n_batches: int = 20
) -> dict[str, float]:
    """Shares of masked positions replaced by ``<mask>`` / a random piece / kept, over ``n_batches``
    MLM batches.

    Book: chapter 10 (Cross-lingual language models, XLM: MLM).
    """
    batches = lm_batches(corpus, replace(config, objective="mlm"), n_batches, seed)
    how = torch.cat([b["replaced_by"][b["selected"]] for b in batches])
    real = sum(int(b["lengths"].sum()) for b in batches)
    counts = torch.bincount(how, minlength=3).double() / max(len(how), 1)
    return {
        "selected share": len(how) / real,
        MASK_TOKEN: float(counts[0]),
        "random piece": float(counts[1]),
        "kept": float(counts[2]),
    }


def _text_rates(corpus: LMCorpus) -> tuple[float, float]:
    """Pieces per monolingual sentence and per bitext pair (both sides) of ``corpus``."""
    pieces = sum(int(corpus.streams[x].numel() + corpus.heldout[x].numel()) for x in corpus.streams)
    per_sentence = pieces / max(sum(corpus.n_sentences.values()), 1)
    pairs = [len(a) + len(b) for src, tgt in corpus.pairs.values() for a, b in zip(src, tgt)]
    return per_sentence, float(np.mean(pairs)) if pairs else 0.0


def pretraining_scale(
    plan: ScaleSizes,
    corpus: LMCorpus,
    real_corpus: LMCorpus,
    *,
    real_xnli: bool,
    speed: Sequence[Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """The size of ``plan``'s three pretraining runs (XNLI MLM, XNLI MLM+TLM, real-text MLM+TLM),
    one row each.

    ``parameters`` (:func:`model_parameters`, vocabulary of the plan's size), ``steps``, ``tokens
    processed`` (MLM steps: ``batch_size * stream_len``; TLM steps: ``pair_batch`` pairs of the mean
    pair length of this run's bitext), ``tokens of text`` (the plan's sentence and pair counts times
    the pieces per sentence and per pair measured on ``corpus`` / ``real_corpus``: exact for the
    plan that built them, an estimate for another), their ratios to the parameters, passes over the
    text, and ``H100 estimate (min)``: tokens processed / the input tokens per second of a committed
    GPU record (``speed``, :func:`throughput_records`) of the same width, depth, stream length and
    objective, of the same batch size when there is one (the ``H100 record`` column names it, with
    its batch when that differs); None when there is none. Held-out evaluations, data preparation
    and fine-tuning are not included. ``real_xnli``: the XNLI models pretrain on the real text (as
    the chapter does with the real XNLI).
    Book: chapter 10 (Cross-lingual language models, XLM: the size of each profile).
    """
    synthetic = (
        {lang: plan.n_mono for lang in ["en", *plan.targets]},
        {("en", lang): plan.n_parallel for lang in plan.targets},
    )
    real = real_text_sizes(plan)
    runs = [
        (
            "XNLI, MLM",
            plan.pretrain,
            "mlm",
            corpus,
            real if real_xnli else synthetic,
            plan.vocab_size,
        ),
        (
            "XNLI, MLM+TLM",
            plan.pretrain,
            "mlm+tlm",
            corpus,
            real if real_xnli else synthetic,
            plan.vocab_size,
        ),
    ]
    if plan.real_pretrain is not None:
        runs.append(
            (
                "real text, MLM+TLM",
                plan.real_pretrain,
                "mlm+tlm",
                real_corpus,
                real,
                plan.real_vocab,
            )
        )
    rows = []
    for name, config, objective, source, (mono, pairs), vocab in runs:
        per_sentence, per_pair = _text_rates(source)
        tlm_steps = config.steps // 2 if objective == "mlm+tlm" else 0
        processed = (
            config.steps - tlm_steps
        ) * config.batch_size * plan.stream_len + tlm_steps * config.pair_batch * per_pair
        text = sum(mono.values()) * per_sentence + (
            sum(pairs.values()) * per_pair if tlm_steps else 0.0
        )
        n_params = model_parameters(vocab, config, len(mono))
        match = sorted(
            (
                r
                for r in speed
                if str(r["device"]).startswith("cuda")
                and r["objective"] == objective
                and (r.get("d_model"), r.get("n_layers"), r.get("stream_len"))
                == (config.d_model, config.n_layers, plan.stream_len)
            ),
            key=lambda r: r.get("batch_size") != config.batch_size,
        )
        rows.append(
            {
                "run": name,
                "parameters": n_params,
                "steps": config.steps,
                "tokens processed": processed,
                "tokens of text": text,
                "processed / parameter": processed / n_params,
                "text / parameter": text / n_params,
                "passes over the text": processed / text,
                "H100 estimate (min)": processed / float(match[0]["tokens/s"]) / 60
                if match
                else None,
                "H100 record": None
                if not match
                else match[0]["record"]
                + (
                    ""
                    if match[0]["batch_size"] == config.batch_size
                    else f" (batch {match[0]['batch_size']})"
                ),
            }
        )
    return rows
