"""The XLM recipe (thesis section 4.3, Lample & Conneau 2019): the chapter's plan, sizes, tables and claims.

Three experiments share the library's pretraining (:mod:`xsent_lib.train.xlm`):

1. **Cross-lingual classification** (Table 4.12): a shared vocabulary and a Transformer pretrained with MLM,
   or with MLM alternating with TLM, on the synthetic world's English and invented languages (monolingual
   streams + bitext), then fine-tuned on English NLI and read zero-shot in every language
   (:mod:`xsent_lib.train.xlm_xnli`); translate-train; chapter 6's aligned BiLSTM-max as the baseline row
   (:mod:`xsent_lib.train.alignment`).
2. **Low-resource language modelling** (Table 4.15): CLM perplexity of a small language alone, with a
   related language, with a distant one, with both: in the synthetic world (exact typological distances)
   and on real text (Spanish with French or English).
3. **Real text** (Figure 4.6, Table 4.16, the vocabulary line): MLM+TLM on our real bitext (nlp-corpus en-fr,
   en-de, Bible en-es) and monolingual text; its lookup table against aligned skip-gram vectors.

Book: chapter 10 (Cross-lingual language models, XLM).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.align.procrustes import procrustes
from xsent_lib.base.runtime import seed_everything
from xsent_lib.base.threads import single_thread
from xsent_lib.data.corpora import load_bitext
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_setup import build_word_setup
from xsent_lib.data.wordvecs import train_wordvecs
from xsent_lib.data.xnli import XNLIBenchmark, real_xnli, synthetic_xnli
from xsent_lib.encoders import NLIClassifier, NLIModel, build_encoder
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.eval.word_pairs import single_piece_pairs, translation_distances
from xsent_lib.eval.xnli import pair_accuracy, with_average
from xsent_lib.losses.lm import frequency_smoothed_weights, language_sampling_probs
from xsent_lib.results.claims import Claim, PaperCell, check_claims
from xsent_lib.text import BOS_TOKEN, EOS_TOKEN, TextPipeline, WordTokenizer
from xsent_lib.train.alignment import AlignConfig, align_encoder, target_encoder, translated_embeddings
from xsent_lib.train.xlm import (
    MASK_TOKEN,
    LMCorpus,
    XLMConfig,
    XLMRun,
    build_lm_corpus,
    build_xlm,
    clm_perplexity,
    heldout_loss,
    language_unigram_entropy,
    lm_batches,
    mask_batch,
    pretrain_xlm,
    shared_vocabulary,
    tlm_batch,
    unigram_entropy,
    vocabulary_stats,
)
from xsent_lib.train.xlm_xnli import FinetuneConfig, FinetuneRun, finetune_xnli, xlm_accuracy
from xsent_lib.train.xnli import train_english_nli

# The XNLI column each invented language stands beside (closest typology; a stand-in, not a translation):
# Romance-like -> fr, Germanic-like -> de, Turkic-like -> tr, Celtic-like (VSO) -> ar, Japonic-like -> hi.
PAPER_COLUMN: dict[str, str] = {"en": "en", "xa": "fr", "xe": "de", "xd": "tr", "xc": "ar", "xb": "hi"}
ENCODERS = "Evaluation of cross-lingual sentence encoders"
ROWS = {"mlm": f"{ENCODERS} / XLM (MLM)", "mlm+tlm": f"{ENCODERS} / XLM (MLM+TLM)",
        "bilstm": f"{ENCODERS} / Conneau et al. (2018c)",
        "tt": "Machine translation baselines (TRANSLATE-TRAIN) / XLM (MLM+TLM)",
        "scratch": f"{ENCODERS} / Transformer without pretraining (ours)"}
SHORT_ROWS = {ROWS["mlm"]: "XLM (MLM)", ROWS["mlm+tlm"]: "XLM (MLM+TLM)",
              ROWS["bilstm"]: "aligned X-BiLSTM-max (chapter 6; paper: Conneau et al. 2018c)",
              ROWS["tt"]: "TRANSLATE-TRAIN, XLM (MLM+TLM)",
              ROWS["scratch"]: "same Transformer, no pretraining (ours)"}
LM_ROWS = ("alone", "+ distant", "+ related", "+ distant + related")
PAPER_LM_ROWS = {"alone": "Nepali", "+ distant": "Nepali + English", "+ related": "Nepali + Hindi",
                 "+ distant + related": "Nepali + English + Hindi"}


@dataclass(frozen=True)
class LMTablePlan:
    """Table 4.15's setting: the low-resource language, a related and a distant one, sentence counts, CLM config.

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """

    low: str
    related: str
    distant: str
    n_low: int
    n_other: int
    vocab_size: int
    config: XLMConfig


@dataclass(frozen=True)
class XLMPlan:
    """Sizes of one profile.

    Synthetic XNLI part: ``targets`` (invented languages), monolingual sentences ``n_mono`` per language,
    ``n_parallel`` bitext pairs per target, NLI sizes, the shared ``vocab_size``, the pretraining config
    (its objective is set per run) and fine-tuning, translate-train languages, the aligned BiLSTM baseline
    (``bilstm_width`` units, ``bilstm_epochs`` NLI epochs, ``align``). ``lm_synthetic`` / ``lm_real``: Table
    4.15 (``None`` skips it). Real part: ``real_mono`` sentences per language, ``real_pairs`` bitext pairs per
    pair (``real_low`` for the low-resource Spanish), ``real_vocab`` pieces, ``real_pretrain`` config;
    ``vocab_alphas`` compared; ``wordvec_dim`` of the skip-gram vectors of Table 4.16. ``stream_len`` pieces per
    stream (MLM and CLM), ``heldout_rows`` streams per language held out for the held-out losses.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    targets: tuple[str, ...]
    n_mono: int
    n_parallel: int
    n_train: int
    n_dev: int
    n_test: int
    vocab_size: int
    pretrain: XLMConfig
    finetune: FinetuneConfig
    translate_train: tuple[str, ...]
    bilstm_width: int
    bilstm_epochs: int
    align: AlignConfig
    lm_synthetic: LMTablePlan | None
    lm_real: LMTablePlan | None
    real_mono: int
    real_pairs: int
    real_low: int
    real_vocab: int
    real_pretrain: XLMConfig | None
    vocab_alphas: tuple[float, ...] = (0.5, 0.3)
    wordvec_dim: int = 64
    stream_len: int = 64
    heldout_rows: int = 8

    def summary(self) -> dict[str, Any]:
        """The plan as plain values, for metrics.json. Book: chapter 10 (XLM)."""
        return asdict(self)


_TINY = XLMConfig(d_model=64, n_heads=4, n_layers=2, dropout=0.0, lr=2e-3, warmup=50, max_len=128)
SMOKE = XLMPlan(
    targets=("xa",), n_mono=800, n_parallel=600, n_train=600, n_dev=100, n_test=150, vocab_size=800,
    pretrain=replace(_TINY, target_exponent=0.0, d_model=32, n_layers=1, batch_size=16, pair_batch=16, steps=40, eval_every=20),
    finetune=FinetuneConfig(epochs=1, lr=5e-4, batch_size=32), translate_train=("xa",),
    bilstm_width=16, bilstm_epochs=1, align=AlignConfig(epochs=1, batch_size=32),
    lm_synthetic=LMTablePlan("xa", "xe", "xb", 200, 400, 500, replace(
        _TINY, objective="clm", d_model=32, n_layers=1, batch_size=16, steps=20, eval_every=20)),
    lm_real=None, real_mono=400, real_pairs=300, real_low=200, real_vocab=800,
    real_pretrain=replace(_TINY, objective="mlm+tlm", target_exponent=0.0, d_model=32, n_layers=1, batch_size=16,
                          pair_batch=16, steps=20, eval_every=20),
    wordvec_dim=16, stream_len=32)
#: the book's MLM settings, chosen by trial runs of the book's XNLI MLM pretraining (seeds 1234 and 1; the commit
#: that set them lists each run). With XLM's count ** -0.5 target weights (streams of 32 or 64 pieces, lr 2e-3 to
#: 5e-3, up to 2,400 steps), and with streams of 64 pieces (uniform targets, lr 2e-3 to 5e-3, 1,200 steps), the tiny
#: model stayed on the unigram plateau (held-out <mask> loss at or above the per-language unigram entropy). With
#: uniform targets (BERT's choice) and streams of 32 pieces it left it within 1,200 steps, furthest at lr 4e-3 with a
#: 200-step warm-up. FULL keeps XLM's weights and streams of 256.
_BOOK_MLM = replace(_TINY, batch_size=64, lr=4e-3, warmup=200, target_exponent=0.0)
#: BOOK fits about 5 CPU minutes: the real-text Table 4.15 (``lm_real``) is left to FULL, and the time it would take
#: goes to the XNLI pretraining that Table 4.12 rests on.
BOOK = XLMPlan(
    targets=("xa", "xe", "xd"), n_mono=4000, n_parallel=3000, n_train=3000, n_dev=300, n_test=500, vocab_size=3000,
    pretrain=replace(_BOOK_MLM, steps=1500, eval_every=300),
    finetune=FinetuneConfig(epochs=4, lr=1e-3, batch_size=32), translate_train=("xd",),
    bilstm_width=64, bilstm_epochs=3, align=AlignConfig(epochs=3),
    lm_synthetic=LMTablePlan("xa", "xe", "xb", 400, 4000, 2000, replace(
        _TINY, objective="clm", steps=150, eval_every=150)),
    lm_real=None, real_mono=5000, real_pairs=5000, real_low=1500, real_vocab=4000,
    real_pretrain=replace(_BOOK_MLM, objective="mlm+tlm", steps=300, eval_every=150), wordvec_dim=64,
    stream_len=32, heldout_rows=64)
FULL = XLMPlan(
    targets=("xa", "xb", "xc", "xd", "xe"), n_mono=100_000, n_parallel=50_000, n_train=50_000, n_dev=2490,
    n_test=5010, vocab_size=8000,
    pretrain=XLMConfig(d_model=512, n_heads=8, n_layers=6, dropout=0.1, lr=5e-4, warmup=2000, max_len=256,
                       batch_size=64, pair_batch=64, steps=50_000, eval_every=2500),
    finetune=FinetuneConfig(epochs=5, lr=2e-4, batch_size=16), translate_train=("xa", "xd"),
    bilstm_width=512, bilstm_epochs=5, align=AlignConfig(epochs=5, batch_size=128),
    lm_synthetic=LMTablePlan("xa", "xe", "xb", 10_000, 60_000, 8000, XLMConfig(
        objective="clm", d_model=256, n_heads=8, n_layers=4, steps=10_000, eval_every=1000, max_len=256)),
    lm_real=LMTablePlan("es", "fr", "en", 10_000, 60_000, 16_000, XLMConfig(
        objective="clm", d_model=256, n_heads=8, n_layers=4, steps=10_000, eval_every=1000, max_len=256)),
    real_mono=45_000, real_pairs=20_000, real_low=10_000, real_vocab=16_000,
    real_pretrain=XLMConfig(objective="mlm+tlm", d_model=512, n_heads=8, n_layers=6, dropout=0.1, lr=5e-4,
                            warmup=2000, max_len=256, steps=50_000, eval_every=2500),
    wordvec_dim=300, stream_len=256)


# ----------------------------------------------------------------------------------------------- data
def synthetic_data(plan: XLMPlan, seed: int) -> tuple[XNLIBenchmark, SyntheticWorld, dict[str, list[str]],
                                                       dict[tuple[str, str], tuple[list[str], list[str]]]]:
    """The synthetic world's XNLI-shaped benchmark (chapter 6's sets), monolingual text and bitext.

    Monolingual text per language is drawn from the world's own stream for that language (comparable, not
    parallel, corpora); the bitext is the benchmark's (the world's ``parallel`` stream, never the NLI forms).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    world = SyntheticWorld(seed)
    bench = synthetic_xnli(world, plan.targets, plan.n_train, plan.n_dev, plan.n_test, plan.n_parallel,
                           max(50, plan.n_dev // 2))
    mono = {lang: world.sentences(plan.n_mono, lang) for lang in ["en", *plan.targets]}
    bitext = {("en", lang): bench.parallel[lang] for lang in plan.targets}
    return bench, world, mono, bitext


def real_xnli_data(plan: XLMPlan, data_dir: str | Path, languages: Sequence[str] = ("fr", "de", "es")
                   ) -> XNLIBenchmark:
    """Real XNLI 1.0 + XNLI-MT 1.0 from ``data_dir`` (any profile, at its plan's sizes), for those of
    ``languages`` (the real-text model's) that have an XNLI-MT training file; the others are named in ``notes``.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    mt = Path(data_dir) / "XNLI-MT-1.0" / "multinli"
    have = [lang for lang in languages if (mt / f"multinli.train.{lang}.tsv").is_file()]
    if not have:
        raise FileNotFoundError(f"no XNLI-MT training file for {list(languages)} under {mt}.")
    bench = real_xnli(data_dir, have, max_train=plan.n_train, max_parallel=plan.n_parallel)
    missing = [lang for lang in languages if lang not in have]
    if missing:
        bench.notes.append(f"languages without XNLI-MT files in data_dir, skipped: {missing}")
    return bench


def real_text_sizes(plan: XLMPlan) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Sentences per language and pairs per bitext that :func:`real_text` cuts for ``plan`` (at most: the
    Bible may hold fewer pairs). Book: chapter 10 (Cross-lingual language models, XLM: real text).
    """
    mono = {"en": plan.real_mono, "fr": plan.real_mono, "de": plan.real_mono, "es": plan.real_low}
    return mono, {("en", lang): plan.real_pairs for lang in ("fr", "de", "es")}


def real_text(plan: XLMPlan) -> tuple[dict[str, list[str]], dict[tuple[str, str], tuple[list[str], list[str]]]]:
    """Monolingual text and bitext from the data cache, cut so that no sentence is in two places.

    nlp-corpus's English is the source of both its French and German (machine) translations, so the
    monolingual English, French and German come from disjoint ranges of its lines and the bitext from a
    further range; Spanish, the low-resource language, is the Bible's Reina-Valera side (``real_low``
    verses) and its bitext the next verses. Raises FileNotFoundError naming the command when not cached.
    Book: chapter 10 (Cross-lingual language models, XLM: real text).
    """
    n, m = plan.real_mono, plan.real_pairs
    en_fr = load_bitext("nlp-en-fr", max_pairs=3 * n + 2 * m)
    en_de = load_bitext("nlp-en-de", max_pairs=3 * n + 2 * m)
    en_es = load_bitext("bible-en-es", max_pairs=plan.real_low + m)
    mono = {"en": en_fr[0][:n], "fr": en_fr[1][n:2 * n], "de": en_de[1][2 * n:3 * n],
            "es": en_es[1][:plan.real_low]}
    bitext = {("en", "fr"): (en_fr[0][3 * n:3 * n + m], en_fr[1][3 * n:3 * n + m]),
              ("en", "de"): (en_de[0][3 * n + m:3 * n + 2 * m], en_de[1][3 * n + m:3 * n + 2 * m]),
              ("en", "es"): (en_es[0][plan.real_low:], en_es[1][plan.real_low:])}
    return mono, bitext


def vocabulary_table(corpora: Mapping[str, Sequence[str]], vocab_size: int, alphas: Sequence[float],
                     workdir: str | Path, seed: int) -> list[dict[str, Any]]:
    """For each alpha: the sampling share ``q_i`` of each language and how finely the learned vocabulary cuts it.

    Book: chapter 10 (Cross-lingual language models, XLM: the shared vocabulary).
    """
    langs = list(corpora)
    rows = []
    for alpha in alphas:
        q = language_sampling_probs([len(corpora[x]) for x in langs], alpha)
        pipe = shared_vocabulary(corpora, vocab_size, workdir, alpha=alpha, seed=seed)
        stats = vocabulary_stats(pipe, corpora)
        for lang, share in zip(langs, q):
            rows.append({"alpha": alpha, "language": lang, "sentences": len(corpora[lang]), "q_i": float(share),
                         **stats[lang]})
    return rows


# ----------------------------------------------------------------------------------------------- pretraining
def lm_corpus(mono: Mapping[str, Sequence[str]], bitext: Mapping[tuple[str, str], tuple[Sequence[str], Sequence[str]]],
              vocab_size: int, plan: XLMPlan, workdir: str | Path, seed: int) -> LMCorpus:
    """The shared vocabulary (alpha 0.5, on the monolingual text) and the encoded streams and bitext.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    pipe = shared_vocabulary(mono, vocab_size, workdir, alpha=0.5, seed=seed)
    return build_lm_corpus(pipe, mono, bitext, stream_len=plan.stream_len, heldout_rows=plan.heldout_rows,
                           max_pair_len=plan.pretrain.max_len // 2)


def pretrain(corpus: LMCorpus, config: XLMConfig, objective: str, *, device: str | torch.device, seed: int,
             checkpoint: str | Path | None = None) -> XLMRun:
    """Pretrain one model with ``objective`` (``config``'s sizes), on one CPU thread when it is small.

    Book: chapter 10 (Cross-lingual language models, XLM: pretraining).
    """
    small = torch.device(device).type == "cpu" and config.d_model <= 256
    with single_thread(small):
        return pretrain_xlm(corpus, replace(config, objective=objective), device=device, seed=seed,
                            checkpoint_path=checkpoint)


def throughput_records(folder: str | Path) -> list[dict[str, Any]]:
    """One row per (record, objective) of the committed pretraining-throughput records ``xlm*.json`` that
    ``benchmarks/bench_xlm.py`` wrote (on this project's 2-core CPU, and on a lent GPU through
    ``benchmarks/run_on_gpu.sh``): device, model size, objective, input tokens per second, commit and date.
    Empty when the folder holds none.
    Book: chapter 10 (Cross-lingual language models, XLM: pretraining speed).
    """
    rows = []
    for path in sorted(Path(folder).glob("xlm*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        prov, params = record["provenance"], record["provenance"]["params"]
        size = f"d={params['d_model']}, {params['n_layers']} layers, streams of {params['stream_len']}, " \
               f"batch {params['batch_size']}"
        for row in record["rows"]:
            rows.append({"record": path.name, "device": prov["device"], "size": size, "objective": row["objective"],
                         "tokens/s": row["tokens_per_s"], "parameters": row["parameters"],
                         "commit": prov["commit"], "date": prov["timestamp_utc"][:10],
                         **{k: params[k] for k in ("d_model", "n_layers", "batch_size", "stream_len")}})
    return rows


def throughput_sentences(rows: Sequence[Mapping[str, Any]], *, gpu_large: str = "xlm_gpu.json",
                         gpu_book: str = "xlm_book_gpu.json", cpu_book: str = "xlm_book_cpu1.json") -> list[str]:
    """Sentences stating what the committed throughput records (:func:`throughput_records`) show: the GPU /
    one-CPU-thread ratio at the book size (same machine), the large / book ratio on the GPU, and the slowest
    objective of each GPU record. A sentence whose records are missing is left out.
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
        out.append(f"Book size, same machine: the GPU ran {ratios(gpu_book, cpu_book)} the input tokens per second "
                   "of one CPU thread.")
    if gpu_large in by and gpu_book in by:
        out.append(f"On the GPU the large model ({params[gpu_large] / params[gpu_book]:.0f}x the book model's "
                   f"parameters) ran {ratios(gpu_large, gpu_book)} the book model's tokens per second.")
    for name in sorted(by):
        if device[name].startswith("cuda") and len(by[name]) > 1:
            slow = min(by[name], key=by[name].get)
            rest = ", ".join(f"{o} {v:,.0f}" for o, v in by[name].items() if o != slow)
            out.append(f"{name}: slowest objective {slow} ({by[name][slow]:,.0f} tokens/s; {rest}).")
    return out


def model_parameters(vocab_size: int, config: XLMConfig, n_langs: int) -> int:
    """Parameters of the Transformer :func:`~xsent_lib.train.xlm.build_xlm` makes for ``config`` (counted on
    torch's meta device: nothing is allocated). Book: chapter 10 (Cross-lingual language models, XLM).
    """
    with torch.device("meta"):
        model = TransformerSentenceEncoder(vocab_size, d_model=config.d_model, n_heads=config.n_heads,
                                           n_layers=config.n_layers, d_ff=config.d_ff, dropout=config.dropout,
                                           max_len=config.max_len, n_langs=n_langs, pooling="first")
    return sum(p.numel() for p in model.parameters())


def _text_rates(corpus: LMCorpus) -> tuple[float, float]:
    """Pieces per monolingual sentence and per bitext pair (both sides) of ``corpus``."""
    pieces = sum(int(corpus.streams[x].numel() + corpus.heldout[x].numel()) for x in corpus.streams)
    per_sentence = pieces / max(sum(corpus.n_sentences.values()), 1)
    pairs = [len(a) + len(b) for src, tgt in corpus.pairs.values() for a, b in zip(src, tgt)]
    return per_sentence, float(np.mean(pairs)) if pairs else 0.0


def pretraining_scale(plan: XLMPlan, corpus: LMCorpus, real_corpus: LMCorpus, *, real_xnli: bool,
                      speed: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The size of ``plan``'s three pretraining runs (XNLI MLM, XNLI MLM+TLM, real-text MLM+TLM), one row each.

    ``parameters`` (:func:`model_parameters`, vocabulary of the plan's size), ``steps``, ``tokens processed``
    (MLM steps: ``batch_size * stream_len``; TLM steps: ``pair_batch`` pairs of the mean pair length of this
    run's bitext), ``tokens of text`` (the plan's sentence and pair counts times the pieces per sentence and per
    pair measured on ``corpus`` / ``real_corpus``: exact for the plan that built them, an estimate for
    another), their ratios to the parameters, passes over the text, and ``H100 estimate (min)``: tokens
    processed / the input tokens per second of a committed GPU record (``speed``, :func:`throughput_records`)
    of the same width, depth, stream length and objective, of the same batch size when there is one (the
    ``H100 record`` column names it, with its batch when that differs); None when there is none. Held-out
    evaluations, data preparation and fine-tuning are not included. ``real_xnli``: the XNLI models pretrain on
    the real text (as the chapter does with the real XNLI).
    Book: chapter 10 (Cross-lingual language models, XLM: the size of each profile).
    """
    synthetic = ({lang: plan.n_mono for lang in ["en", *plan.targets]},
                 {("en", lang): plan.n_parallel for lang in plan.targets})
    real = real_text_sizes(plan)
    runs = [("XNLI, MLM", plan.pretrain, "mlm", corpus, real if real_xnli else synthetic, plan.vocab_size),
            ("XNLI, MLM+TLM", plan.pretrain, "mlm+tlm", corpus, real if real_xnli else synthetic, plan.vocab_size)]
    if plan.real_pretrain is not None:
        runs.append(("real text, MLM+TLM", plan.real_pretrain, "mlm+tlm", real_corpus, real, plan.real_vocab))
    rows = []
    for name, config, objective, source, (mono, pairs), vocab in runs:
        per_sentence, per_pair = _text_rates(source)
        tlm_steps = config.steps // 2 if objective == "mlm+tlm" else 0
        processed = (config.steps - tlm_steps) * config.batch_size * plan.stream_len + tlm_steps * config.pair_batch * per_pair
        text = sum(mono.values()) * per_sentence + (sum(pairs.values()) * per_pair if tlm_steps else 0.0)
        n_params = model_parameters(vocab, config, len(mono))
        match = sorted((r for r in speed if str(r["device"]).startswith("cuda") and r["objective"] == objective
                        and (r.get("d_model"), r.get("n_layers"), r.get("stream_len"))
                        == (config.d_model, config.n_layers, plan.stream_len)),
                       key=lambda r: r.get("batch_size") != config.batch_size)
        rows.append({"run": name, "parameters": n_params, "steps": config.steps, "tokens processed": processed,
                     "tokens of text": text, "processed / parameter": processed / n_params,
                     "text / parameter": text / n_params, "passes over the text": processed / text,
                     "H100 estimate (min)": processed / float(match[0]["tokens/s"]) / 60 if match else None,
                     "H100 record": None if not match else match[0]["record"] + (
                         "" if match[0]["batch_size"] == config.batch_size else f" (batch {match[0]['batch_size']})")})
    return rows


#: compute-optimal training: about this many training tokens per parameter (Hoffmann et al., 2022)
TOKENS_PER_PARAMETER = 20
#: passes over the same text that still count almost as new text (Muennighoff et al., 2023)
USEFUL_PASSES = 4


def scale_sentences(rows: Sequence[Mapping[str, Any]], profile: str) -> list[str]:
    """Sentences on one plan's :func:`pretraining_scale` rows: size, tokens, passes, the model size its text
    supports by :data:`TOKENS_PER_PARAMETER` and :data:`USEFUL_PASSES`, and the estimated H100 time.

    Book: chapter 10 (Cross-lingual language models, XLM: the size of each profile).
    """
    out = []
    for r in rows:
        supported = r["tokens of text"] * USEFUL_PASSES / TOKENS_PER_PARAMETER
        ratio = r["parameters"] / supported
        out.append(f"{profile}, {r['run']}: {r['parameters']:,} parameters, {r['steps']:,} steps processing "
                   f"{r['tokens processed']:,.0f} tokens ({r['processed / parameter']:.1f} per parameter) from a text "
                   f"of {r['tokens of text']:,.0f} tokens ({r['text / parameter']:.2f} per parameter), each seen about "
                   f"{r['passes over the text']:.1f} times. {USEFUL_PASSES} passes at {TOKENS_PER_PARAMETER} tokens "
                   f"per parameter would suit about {supported:,.0f} parameters: the model is "
                   f"{ratio if ratio >= 1 else 1 / ratio:.1f}x {'larger' if ratio >= 1 else 'smaller'}.")
    timed = [r for r in rows if r["H100 estimate (min)"] is not None]
    if timed:
        total = sum(r["H100 estimate (min)"] for r in timed)
        records = sorted({str(r["H100 record"]) for r in timed})
        out.append(f"Estimate, not a measurement: {profile}'s pretraining runs ({'; '.join(r['run'] for r in timed)}) "
                   f"would take about {total:.0f} minutes on one H100 (tokens processed / input tokens per second of "
                   f"the committed records {'; '.join(records)}; evaluations and data preparation not included).")
    return out


def curve(run: XLMRun) -> dict[str, list[float]]:
    """Held-out loss against steps of a run, for :func:`xsent_lib.viz.xlm.pretraining_curves`.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    return {"steps": list(run.history.steps), "loss": [float(x) for x in run.history.dev]}


def mlm_vs_unigram(run: XLMRun, seed: int = 0) -> dict[str, float]:
    """The held-out MLM loss beside the loss of a context-free predictor that knows the language, like with like.

    ``held-out MLM loss``: the run's final held-out loss averaged over languages, on the positions whose input
    was ``<mask>`` (the input says nothing of the answer there), their targets drawn with the training weights
    (``count ** -target_exponent``). ``per-language unigram entropy``: the entropy of that target distribution
    in each language (:func:`~xsent_lib.train.xlm.language_unigram_entropy`), averaged the same way. For
    reference, not for comparison: the loss over every chosen position (the 10% kept show the answer) and the
    entropy of the targets of all languages pooled, with the same weights (a predictor that only knows the
    language beats it).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    corpus, exponent = run.corpus, run.config.target_exponent
    langs = list(run.heldout)
    per_language = language_unigram_entropy(corpus, exponent)
    counts = corpus.pipeline.vocab.counts
    pooled = torch.as_tensor(np.asarray(counts, dtype=np.float64)) * frequency_smoothed_weights(
        counts, exponent, corpus.special_ids).double()
    every = [heldout_loss(run.model, corpus, "mlm", lang, seed=seed, score="selected", target_exponent=exponent)
             for lang in langs]
    return {"held-out MLM loss": float(np.mean([run.heldout[lang] for lang in langs])),
            "per-language unigram entropy": float(np.mean([per_language[lang] for lang in langs])),
            "held-out MLM loss, every chosen position": float(np.mean(every)),
            "pooled unigram entropy": unigram_entropy(pooled.numpy(), corpus.special_ids)}


# ----------------------------------------------------------------------------------------------- XNLI
def zero_shot(run: XLMRun | LMCorpus, bench: XNLIBenchmark, plan: XLMPlan, *, device: str | torch.device,
              seed: int) -> tuple[FinetuneRun, dict[str, float]]:
    """Fine-tune on English NLI (English dev for model selection), then test every language with its id.

    Given an :class:`LMCorpus` instead of a pretrained run, the same Transformer is fine-tuned from a random
    initialisation (the "no pretraining" control row).
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if isinstance(run, LMCorpus):
        corpus, encoder = run, build_xlm(run, plan.pretrain, seed)
    else:
        corpus, encoder = run.corpus, run.model
    ids = corpus.lang_ids
    with single_thread(torch.device(device).type == "cpu"):
        ft = finetune_xnli(encoder, bench.train, bench.dev["en"], lang_id=ids["en"], config=plan.finetune,
                           device=device, seed=seed)
        accs = {lang: xlm_accuracy(ft.model, bench.test[lang], ids[lang], device=device) for lang in bench.languages}
    return ft, accs


def translate_train(run: XLMRun, bench: XNLIBenchmark, lang: str, plan: XLMPlan, *, device: str | torch.device,
                    seed: int) -> float:
    """TRANSLATE-TRAIN: fine-tune on the English training pairs translated into ``lang`` (the benchmark's
    translator), select on ``lang``'s dev set, test on ``lang``.
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    if bench.translate is None:
        raise ValueError("translate-train needs a translator; this benchmark has none.")
    from xsent_lib.data.formats import NLIData

    moved = NLIData(bench.translate(list(bench.train.premises), "en", lang),
                    bench.translate(list(bench.train.hypotheses), "en", lang), np.asarray(bench.train.labels))
    lid = run.corpus.lang_ids[lang]
    with single_thread(torch.device(device).type == "cpu"):
        ft = finetune_xnli(run.model, moved, bench.dev[lang], lang_id=lid, config=plan.finetune, device=device,
                           seed=seed)
        return xlm_accuracy(ft.model, bench.test[lang], lid, device=device)


def translate_train_languages(plan: XLMPlan, bench: XNLIBenchmark, *, real: bool) -> list[str]:
    """The languages translate-train runs on. Synthetic world: the plan's ``translate_train`` languages that the
    benchmark has (the world's exact translations). Real XNLI (``real``): every target language of ``bench``,
    since :func:`real_xnli_data` keeps only the languages whose XNLI-MT training file it loaded, and those
    machine translations of the English training pairs are what translate-train reads.
    Book: chapter 10 (Cross-lingual language models, XLM: fine-tuning on XNLI).
    """
    targets = [lang for lang in bench.languages if lang != "en"]
    if bench.translate is None:
        return []
    return targets if real else [lang for lang in plan.translate_train if lang in targets]


def aligned_bilstm(bench: XNLIBenchmark, world: SyntheticWorld | None, plan: XLMPlan, *,
                   device: str | torch.device, seed: int) -> dict[str, float]:
    """Chapter 6's X-BiLSTM-max at this chapter's size: an English BiLSTM-max NLI model (random word vectors,
    trained with it), frozen; one target encoder per language aligned to it on the bitext with L_align
    (:func:`~xsent_lib.train.alignment.align_encoder`), its lookup table started from the English vectors of
    gold-lexicon translations (synthetic world); zero-shot accuracy through the English classifier.
    Book: chapter 10 (Cross-lingual language models, XLM: the baseline of Table 4.12).
    """
    seed_everything(seed)
    words = build_word_setup(bench.sentences("en"), None, dim=50, seed=seed, source="")
    encoder = build_encoder("bilstm-max", len(words.pipeline.vocab), word_dim=words.dim, embeddings=words.weights,
                            freeze_embeddings=words.frozen, pipeline=words.pipeline, hidden_dim=plan.bilstm_width)
    model = NLIModel(encoder, NLIClassifier(encoder.output_dim, 128, dropout=0.1))
    corpus = NLICorpus(bench.train, bench.dev["en"], bench.test["en"], bench.source)
    english = train_english_nli("bilstm-max", model, words.pipeline, corpus, epochs=plan.bilstm_epochs,
                                width=plan.bilstm_width, device=device, seed=seed)
    accs = {"en": english.test_acc}
    for lang in bench.languages[1:]:
        pipeline = TextPipeline.fit(bench.sentences(lang), WordTokenizer(), bos=BOS_TOKEN, eos=EOS_TOKEN)
        pairs: list[tuple[str, str]] = []
        if world is not None:
            lex = world.lexicon(lang, "en", inflected=True)
            pairs = [*lex.train, *lex.test]
        weights, coverage = translated_embeddings(english.encoder, words.pipeline, pipeline, pairs, seed)
        target = target_encoder(english.encoder, pipeline, weights, fine_tune=plan.align.fine_tune)
        with single_thread(torch.device(device).type == "cpu" and plan.bilstm_width <= 256):
            run = align_encoder(english.encoder, target, bench.parallel[lang], bench.parallel_dev[lang], plan.align,
                                init_coverage=coverage, device=device, seed=seed)
        accs[lang] = pair_accuracy(english.model.classifier, run.encoder, bench.test[lang], device=device)
    return accs


def paper_row(accuracies: Mapping[str, float | None]) -> dict[str, float | None]:
    """Our per-language accuracies keyed by the paper's columns (:data:`PAPER_COLUMN`; real codes stay).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    return {PAPER_COLUMN.get(lang, lang): value for lang, value in accuracies.items()}


def table_4_12_ours(rows: Mapping[str, Mapping[str, float | None]], languages: Sequence[str]) -> dict[str, dict]:
    """Table 4.12 rows (keys of :data:`ROWS`) with the paper's column names and an ``avg`` over ``languages``.

    A row that lacks a language (translate-train in ``book``) gets no average.
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    out = {}
    for key, accs in rows.items():
        full = with_average(accs, languages)
        out[ROWS[key]] = {PAPER_COLUMN.get(k, k) if k != "avg" else "avg": v for k, v in full.items()}
    return out


def label_columns(frame: Any, languages: Sequence[str]) -> Any:
    """Relabel a side-by-side table's paper columns with the language of ours under each, e.g. ``"fr | xa"``.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    ours = {PAPER_COLUMN.get(lang, lang): lang for lang in languages}
    names = {c: f"{c} | {ours[c]}" if c in ours and ours[c] != c else c for c in frame.columns.get_level_values(0)}
    return frame.rename(columns=names, level=0)


# ----------------------------------------------------------------------------------------------- Table 4.15
def _lm_combos(table: LMTablePlan) -> dict[str, list[str]]:
    """The training languages of each row of Table 4.15 (:data:`LM_ROWS`), the low-resource language first."""
    low, rel, dist = table.low, table.related, table.distant
    return dict(zip(LM_ROWS, ([low], [low, dist], [low, rel], [low, dist, rel])))


def lm_table_cost(table: LMTablePlan, stream_len: int) -> dict[str, int]:
    """What :func:`lm_table` trains for ``table``: its CLMs, their training steps in all (a row with ``k``
    languages trains ``k`` times ``table.config.steps``) and the input pieces those steps process
    (``batch_size`` streams of ``stream_len`` pieces a step). Held-out scoring and the vocabulary not included.
    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    if not isinstance(stream_len, int) or stream_len < 2:
        raise ValueError(f"stream_len must be an integer >= 2 (pieces per stream), got {stream_len!r}.")
    steps = sum(table.config.steps * len(use) for use in _lm_combos(table).values())
    return {"models": len(LM_ROWS), "steps": steps, "pieces processed": steps * table.config.batch_size * stream_len}


def lm_table(corpora: Mapping[str, Sequence[str]], table: LMTablePlan, heldout_text: Sequence[str], workdir: str | Path,
             *, stream_len: int, device: str | torch.device, seed: int) -> list[dict[str, Any]]:
    """Perplexity of ``table.low`` (on ``heldout_text``) for CLMs trained on it alone and with the other languages.

    One shared vocabulary (alpha 0.5, all three languages) serves every row, so the perplexities are per the
    same pieces. Every row has the same model size and gives the low-resource language the same number of
    batches (``table.config.steps``): the batch language is drawn uniformly and a row with ``k`` languages
    trains ``k`` times as many steps, so what changes between rows is only the text added on top.
    Each row also says which share of the low-resource language's pieces occur in the added text (the paper:
    Nepali and Hindi share more than 80% of their tokens); with both added, the larger share; and its ``steps``
    (:func:`lm_table_cost` sums them).
    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    low, rel, dist = table.low, table.related, table.distant
    pipe = shared_vocabulary({x: corpora[x] for x in (low, dist, rel)}, table.vocab_size, workdir, alpha=0.5,
                             seed=seed)
    langs = [low, dist, rel]
    heldout = build_lm_corpus(pipe, {low: list(heldout_text)}, languages=langs, stream_len=stream_len,
                              heldout_rows=1).streams[low]
    combos = _lm_combos(table)
    seen = {x: set(np.concatenate(pipe.encode(list(corpora[x]))).tolist()) for x in langs}
    shared = {x: 100.0 * len(seen[low] & seen[x]) / len(seen[low]) for x in langs}
    rows = []
    for name, use in combos.items():
        corpus = build_lm_corpus(pipe, {x: corpora[x] for x in use}, languages=langs, stream_len=stream_len,
                                 heldout_rows=2)
        # equal exposure: languages drawn uniformly and len(use) times the steps, so the low-resource language
        # gets the same number of batches in every row and the other languages come on top
        config = replace(table.config, alpha=0.0, steps=table.config.steps * len(use),
                         eval_every=table.config.eval_every * len(use))
        run = pretrain(corpus, config, "clm", device=device, seed=seed)
        rows.append({"training languages": name, "languages": " + ".join(use), "steps": config.steps,
                     "perplexity": clm_perplexity(run.model, corpus, low, streams=heldout),
                     f"{low} pieces also in the added text (%)": max((shared[x] for x in use[1:]), default=None),
                     "seconds": run.seconds})
    return rows


def lm_table_ours(rows: Sequence[Mapping[str, Any]], label: str) -> dict[str, dict[str, float]]:
    """Our Table 4.15 rows keyed by the paper's row names (column ``label``, e.g. ``"xa perplexity"``).

    Book: chapter 10 (Cross-lingual language models, XLM: low-resource language modelling).
    """
    return {PAPER_LM_ROWS[r["training languages"]]: {label: float(r["perplexity"])} for r in rows}


# ----------------------------------------------------------------------------------------------- Table 4.16
def word_table(run: XLMRun, texts: Mapping[str, Sequence[str]], src: str, tgt: str,
               train_pairs: Sequence[tuple[str, str]], test_pairs: Sequence[tuple[str, str]], *, dim: int,
               workdir: str | Path, seed: int) -> dict[str, dict[str, float]]:
    """Table 4.16: cosine and L2 between test translation pairs in three spaces.

    ``XLM``: rows of the pretrained input lookup table (pairs whose words are single pieces). ``Procrustes``
    (our MUSE stand-in, supervised by ``train_pairs``): skip-gram vectors trained per language on ``texts`` and
    mapped with Procrustes. ``Concat``: one skip-gram model on both texts together (Lample et al. 2018a).
    Every space is scored on the same test pairs (those every space covers), after centring it.
    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    workdir = Path(workdir)
    vec = {lang: train_wordvecs(lang, sentences=list(texts[lang]), dim=dim, min_count=2, epochs=5, seed=seed,
                                cache_dir=workdir) for lang in (src, tgt)}
    both = train_wordvecs(f"{src}+{tgt}", sentences=[*texts[src], *texts[tgt]], dim=dim, min_count=2, epochs=5,
                          seed=seed, cache_dir=workdir)
    # every space is centred (its mean vector subtracted, MUSE's "center" normalisation): the direction tiny
    # corpora give every vector must not count as closeness between translations
    for v in (*vec.values(), both):
        v.vectors = v.vectors - v.vectors.mean(0, keepdims=True)
    table = run.model.token_embedding.weight.detach().cpu().numpy()[len(run.corpus.special_ids):]
    table = np.concatenate([np.zeros((len(run.corpus.special_ids), table.shape[1]), table.dtype),
                            table - table.mean(0, keepdims=True)])
    xlm_pairs = {(a, b): (i, j) for a, b, i, j in single_piece_pairs(run.corpus.pipeline, test_pairs)}
    inside = lambda a, b: a in vec[src].word2id and b in vec[tgt].word2id and a in both.word2id and b in both.word2id  # noqa: E731
    test = [p for p in xlm_pairs if inside(*p)]
    train = [(a, b) for a, b in train_pairs if a in vec[src].word2id and b in vec[tgt].word2id]
    if len(test) < 2 or len(train) < 2:
        return {"note": {"n": len(test)}}
    W = procrustes(np.stack([vec[src].vectors[vec[src].word2id[a]] for a, _ in train]),
                   np.stack([vec[tgt].vectors[vec[tgt].word2id[b]] for _, b in train]))
    X = lambda v, side: np.stack([v.vectors[v.word2id[p[side]]] for p in test])  # noqa: E731
    return {"Procrustes (MUSE stand-in)": translation_distances(X(vec[src], 0) @ W.T, X(vec[tgt], 1)),
            "Concat": translation_distances(X(both, 0), X(both, 1)),
            "XLM": translation_distances(table[[xlm_pairs[p][0] for p in test]], table[[xlm_pairs[p][1] for p in test]])}


PAPER_WORD_ROWS = {"Procrustes (MUSE stand-in)": "MUSE", "Concat": "Concat", "XLM": "XLM"}
#: display labels of Table 4.16's rows beside the paper's: the MUSE row holds our supervised stand-in
WORD_ROW_LABELS = {"MUSE": "MUSE | ours: Procrustes (stand-in)", "Concat": "Concat", "XLM": "XLM"}


def word_table_ours(table: Mapping[str, Mapping[str, float]]) -> dict[str, dict[str, float]]:
    """Our Table 4.16 keyed by the paper's rows and columns (cosine, L2; no SemEval'17 set offline).

    Book: chapter 10 (Cross-lingual language models, XLM: word embeddings).
    """
    return {PAPER_WORD_ROWS[k]: {"Cosine sim.": v["cosine"], "L2 dist.": v["L2"]} for k, v in table.items()
            if k in PAPER_WORD_ROWS}


# ----------------------------------------------------------------------------------------------- Figure 4.6
def figure_panels(corpus: LMCorpus, config: XLMConfig, seed: int, n_tokens: int = 18,
                  pair: tuple[str, str] | None = None) -> list[dict[str, Any]]:
    """The two panels of Figure 4.6 from real batches of ``corpus``: an MLM stream and a TLM pair.

    The MLM panel shows the first ``n_tokens`` of a masked stream; the TLM panel the first pair of a masked
    TLM batch of ``pair`` (default the first bitext pair), source then translation with positions reset.
    Book: chapter 10 (Cross-lingual language models, XLM: Figure 4.6).
    """
    vocab = corpus.pipeline.vocab
    names = {i: lang for lang, i in corpus.lang_ids.items()}
    # 30% masking for the picture only, so that a short window shows several predictions
    shown = replace(config, mask_prob=0.3)

    def panel(batch: Mapping[str, torch.Tensor], title: str, width: int) -> dict[str, Any]:
        row = batch["inputs"][0, :width]
        targets = batch["targets"][0, :width]
        positions = batch["positions"][0, :width] if "positions" in batch else torch.arange(len(row))
        langs = batch["langs"][0, :width]
        return {"title": title, "tokens": vocab.tokens_of(row.tolist()),
                "targets": [vocab.itos[int(t)] if bool(s) else None
                            for t, s in zip(targets, batch["selected"][0, :width])],
                "positions": [int(p) for p in positions], "langs": [names[int(x)] for x in langs]}

    mlm = lm_batches(corpus, replace(shown, objective="mlm"), 1, seed)[0]
    out = [panel(mlm, f"Masked language modelling (MLM): a stream of {corpus.stream_len} pieces, first "
                      f"{n_tokens} shown", n_tokens)]
    if corpus.pairs:
        pair = pair or next(iter(corpus.pairs))
        pb = tlm_batch(corpus, pair, [0])
        weights = frequency_smoothed_weights(vocab.counts, shown.target_exponent, corpus.special_ids)
        gen = torch.Generator().manual_seed(seed)
        tlm = mask_batch(pb.token_ids, pb.lengths, corpus, weights, shown, gen)
        tlm.update(langs=pb.langs, positions=pb.positions)
        out.append(panel(tlm, f"Translation language modelling (TLM): a {pair[0]}-{pair[1]} pair, positions reset "
                              "at the translation", int(pb.lengths[0])))
    return out


def mask_statistics(corpus: LMCorpus, config: XLMConfig, seed: int, n_batches: int = 20) -> dict[str, float]:
    """Shares of masked positions replaced by ``<mask>`` / a random piece / kept, over ``n_batches`` MLM batches.

    Book: chapter 10 (Cross-lingual language models, XLM: MLM).
    """
    batches = lm_batches(corpus, replace(config, objective="mlm"), n_batches, seed)
    how = torch.cat([b["replaced_by"][b["selected"]] for b in batches])
    real = sum(int(b["lengths"].sum()) for b in batches)
    counts = torch.bincount(how, minlength=3).double() / max(len(how), 1)
    return {"selected share": len(how) / real, MASK_TOKEN: float(counts[0]), "random piece": float(counts[1]),
            "kept": float(counts[2])}


# ----------------------------------------------------------------------------------------------- claims
CHANCE = 100.0 / 3.0
#: "well above chance" read as at least this many points above 33.3% (three balanced classes)
WELL_ABOVE = 10.0


def _mean_targets(accs: Mapping[str, float | None] | None, only: Sequence[str] | None = None) -> float | None:
    if not accs:
        return None
    vals = [v for lang, v in accs.items() if lang != "en" and v is not None and (only is None or lang in only)]
    return float(np.mean(vals)) if vals else None


def _ppl(rows: Sequence[Mapping[str, Any]] | None, name: str) -> float | None:
    for r in rows or ():
        if r["training languages"] == name:
            return float(r["perplexity"])
    return None


def claim_numbers(rows: Mapping[str, Mapping[str, float | None]], lm_synthetic: Sequence[Mapping[str, Any]] | None,
                  lm_real: Sequence[Mapping[str, Any]] | None, words: Mapping[str, Mapping[str, float]] | None,
                  mlm_check: Mapping[str, float] | None) -> dict[str, float | None]:
    """The numbers the claims compare, from the run's tables (zero-shot averages over target languages).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    tt_langs = [lang for lang in rows.get("tt", {}) if lang != "en"]
    words = words or {}
    cos = lambda k: words.get(k, {}).get("cosine")  # noqa: E731
    return {
        "MLM zero-shot avg": _mean_targets(rows.get("mlm")),
        "no-pretraining zero-shot avg": _mean_targets(rows.get("scratch")),
        "chance + 10": CHANCE + WELL_ABOVE,
        "MLM+TLM zero-shot avg": _mean_targets(rows.get("mlm+tlm")),
        "aligned BiLSTM avg": _mean_targets(rows.get("bilstm")),
        "translate-train avg": _mean_targets(rows.get("tt")),
        "MLM+TLM zero-shot avg (translate-train languages)": _mean_targets(rows.get("mlm+tlm"), tt_langs)
        if tt_langs else None,
        "synthetic ppl alone": _ppl(lm_synthetic, "alone"),
        "synthetic ppl + distant": _ppl(lm_synthetic, "+ distant"),
        "synthetic ppl + related": _ppl(lm_synthetic, "+ related"),
        "synthetic ppl + both": _ppl(lm_synthetic, "+ distant + related"),
        "real ppl alone": _ppl(lm_real, "alone"),
        "real ppl + distant": _ppl(lm_real, "+ distant"),
        "real ppl + related": _ppl(lm_real, "+ related"),
        "XLM lookup cosine": cos("XLM"), "Procrustes cosine": cos("Procrustes (MUSE stand-in)"),
        "Concat cosine": cos("Concat"),
        "XLM lookup cosine of random pairs": words.get("XLM", {}).get("cosine of random pairs"),
        "Procrustes cosine of random pairs": words.get("Procrustes (MUSE stand-in)", {}).get("cosine of random pairs"),
        "Concat cosine of random pairs": words.get("Concat", {}).get("cosine of random pairs"),
        "held-out MLM loss": None if not mlm_check else mlm_check["held-out MLM loss"],
        "per-language unigram entropy": None if not mlm_check else mlm_check["per-language unigram entropy"],
    }


def _cells(table: str, rows: Sequence[str], col: str) -> list[PaperCell]:
    return [PaperCell("thesis", table, row, col) for row in rows]


def xlm_claims(numbers: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The section's claims checked on ``numbers`` (:func:`claim_numbers`); rows for the claims table.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    t412 = "table_4_12"
    claims = [
        Claim("MLM pretraining alone gives zero-shot transfer well above chance", "MLM zero-shot avg", ">",
              "chance + 10", _cells(t412, [ROWS["mlm"]], "avg"),
              note=f"'well above' read as more than {WELL_ABOVE:g} points over chance (33.3%)"),
        Claim("MLM pretraining beats the same Transformer without pretraining (zero-shot)", "MLM zero-shot avg", ">",
              "no-pretraining zero-shot avg", "not in the paper's table (our control row)"),
        Claim("TLM on parallel data adds to MLM (zero-shot)", "MLM+TLM zero-shot avg", ">", "MLM zero-shot avg",
              _cells(t412, [ROWS["mlm+tlm"], ROWS["mlm"]], "avg")),
        Claim("XLM (MLM+TLM) beats the aligned BiLSTM of XNLI", "MLM+TLM zero-shot avg", ">", "aligned BiLSTM avg",
              _cells(t412, [ROWS["mlm+tlm"], ROWS["bilstm"]], "avg")),
        Claim("TRANSLATE-TRAIN beats zero-shot transfer", "translate-train avg", ">",
              "MLM+TLM zero-shot avg (translate-train languages)",
              _cells(t412, [ROWS["tt"], ROWS["mlm+tlm"]], "avg"), note="ours: on the translate-train languages only"),
        Claim("a related language lowers the perplexity more than a distant one (synthetic world)",
              "synthetic ppl + related", "<", "synthetic ppl + distant",
              _cells("table_4_15", ["Nepali + Hindi", "Nepali + English"], "Nepali perplexity")),
        Claim("a distant language still lowers the perplexity (synthetic world)", "synthetic ppl + distant", "<",
              "synthetic ppl alone", _cells("table_4_15", ["Nepali + English", "Nepali"], "Nepali perplexity")),
        Claim("both languages together give the lowest perplexity (synthetic world)", "synthetic ppl + both", "<",
              "synthetic ppl + related", _cells("table_4_15", ["Nepali + English + Hindi"], "Nepali perplexity")),
        Claim("a related language lowers the perplexity more than a distant one (real text: es with fr vs en)",
              "real ppl + related", "<", "real ppl + distant",
              _cells("table_4_15", ["Nepali + Hindi", "Nepali + English"], "Nepali perplexity")),
        Claim("the MLM lookup table puts translations closer (cosine) than aligned word vectors", "XLM lookup cosine",
              ">", "Procrustes cosine", _cells("table_4_16", ["XLM", "MUSE"], "Cosine sim.")),
        Claim("the MLM lookup table beats vectors trained on the concatenated corpora (cosine)", "XLM lookup cosine",
              ">", "Concat cosine", _cells("table_4_16", ["XLM", "Concat"], "Cosine sim.")),
        Claim("the pretrained model beats a context-blind predictor that knows the language, on held-out <mask> "
              "positions", "held-out MLM loss", "<", "per-language unigram entropy",
              "not in the paper (our sanity check)"),
    ]
    return check_claims(claims, numbers)


def run_summary(rows: Mapping[str, Mapping[str, float | None]], numbers: Mapping[str, float | None]) -> list[str]:
    """Plain sentences stating what the run produced, for the discussion.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    out = []
    names = {"scratch": "no pretraining", "mlm": "XLM (MLM)", "mlm+tlm": "XLM (MLM+TLM)",
             "bilstm": "aligned BiLSTM-max", "tt": "translate-train"}
    for key, name in names.items():
        accs = {lang: v for lang, v in rows.get(key, {}).items() if lang != "en" and v is not None}
        if accs:
            en = rows[key].get("en")
            out.append(f"{name}: English {en:.1f}; target languages {', '.join(f'{k} {v:.1f}' for k, v in accs.items())} "
                       f"(mean {np.mean(list(accs.values())):.1f}; chance {CHANCE:.1f}).")
    m, t = numbers.get("MLM zero-shot avg"), numbers.get("MLM+TLM zero-shot avg")
    if m is not None and t is not None:
        out.append(f"TLM changed the zero-shot mean by {t - m:+.1f} points.")
    for prefix, label in (("synthetic", "synthetic world"), ("real", "real text")):
        a, d, r = (numbers.get(f"{prefix} ppl {k}") for k in ("alone", "+ distant", "+ related"))
        if None not in (a, d, r):
            out.append(f"{label}: perplexity {a:.1f} alone, {d:.1f} with the distant language ({d - a:+.1f}), "
                       f"{r:.1f} with the related one ({r - a:+.1f}).")
    for space in ("XLM lookup", "Procrustes", "Concat"):
        c, r = numbers.get(f"{space} cosine"), numbers.get(f"{space} cosine of random pairs")
        if c is not None and r is not None:
            out.append(f"{space}: translations {c:.3f} vs random pairs {r:.3f} in cosine ({c - r:+.3f}).")
    return out
