"""The Wang et al. recipe (chapter 9): sizes per profile, the runs, the tables beside the paper, the claims.

Two corpora carry the chapter. The synthetic world's documents in English and invented languages give Table 1
(XNLI-shaped, frozen features, MLP trained on English) and Figure 3 (accuracy against rounds), with mined-pair
precision against held-out parallel documents. The LibreOffice help pages, split between languages so that no
page is in two languages, give the Table 2 analogue (help-module classification, train on one language, test on
the other), the Table 3 analogue (the sampling size ``m``) and the Figure 2 analogue (English from the Bible).
Training: :mod:`xsent_lib.train.context`; data: :mod:`xsent_lib.data.monodocs`.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import copy
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.align.adversarial import AdversarialConfig
from xsent_lib.align.pipeline import unsupervised_align
from xsent_lib.align.procrustes import procrustes
from xsent_lib.align.setting import make_setting
from xsent_lib.base.threads import single_thread
from xsent_lib.data.formats import load_moses_bitext
from xsent_lib.data.formats.nli import NLIData, load_xnli, load_xnli_mt
from xsent_lib.data.monodocs import MonoDocs, lohelp_documents, parallel_leakage, text_documents, world_documents
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.word_spaces import sentences_space
from xsent_lib.data.xnli import XNLIBenchmark, synthetic_xnli
from xsent_lib.eval.frozen_mlp import frozen_mlp_transfer, wang_pair_features
from xsent_lib.results.claims import Claim, PaperCell, check_claims
from xsent_lib.text import WordTokenizer
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.vocab import Vocab
from xsent_lib.train.context import (ContextConfig, DocCorpus, WangModel, WangRun, build_wang_model, doc_corpus,
                                     embed_corpus, gold_pair_precision, token_matrix, train_mlm, train_wang)

SPECIALS = ("<pad>", "<unk>", "</s>", "<mask>")
#: the invented language under each of the paper's columns (closest typology; a stand-in, not a translation)
PAPER_COLUMN = {"en": "en", "xa": "fr", "xe": "de", "xc": "es", "xd": "zh"}
#: the round the paper's "+iteration" rows report (Sec. 4.1: 3 rounds of retrieve-then-regress)
PLUS_ROUND = 3
#: the paper's Figure 3 in words (it prints no numbers; spec P1.11): accuracy on RCV2 en-zh / zh-en against rounds
PAPER_FIGURE_3 = ("the paper's Figure 3 (RCV2 en-zh and zh-en, drawn only): large gains at rounds 1-2, flat after "
                  "round 3, lower after round 5")


@dataclass(frozen=True)
class WangPlan:
    """Sizes of one profile (``n_labelled``: labelled help paragraphs per language for training the classifier, and
    as many for testing it). Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    world_langs: tuple[str, ...]
    n_docs: int
    n_sents: int
    n_nli_train: int
    n_nli_test: int
    help_langs: tuple[str, ...]
    help_sentences: int
    d_model: int
    n_layers: int
    n_heads: int
    config: ContextConfig
    max_tokens: int
    m_values: tuple[int, ...]
    domain_run: bool
    mlm_epochs: int
    mlp_hidden: tuple[int, ...]
    n_gold_keep: int
    muse_epoch: int
    n_labelled: int = 800

    def summary(self) -> dict[str, Any]:
        """Plain values for metrics.json. Book: chapter 9 (Multilingual embeddings from monolingual text)."""
        return asdict(self)


SMOKE = WangPlan(("en", "xa"), 60, 6, 600, 200, ("en", "es"), 300, 32, 1, 2,
                 ContextConfig(k=1, maxlen=48, stage1_epochs=2, rounds=2, m=150, pairs_per_draw=50,
                               pairs_per_round=150, batch_size=32, lr=3e-3),
                 16, (100,), False, 1, (64, 48), 30, 5000, n_labelled=200)
BOOK = WangPlan(("en", "xa", "xe"), 200, 8, 3000, 600, ("en", "es"), 1500, 48, 1, 4,
                ContextConfig(k=1, maxlen=64, stage1_epochs=4, rounds=5, m=500, pairs_per_draw=150,
                              pairs_per_round=900, batch_size=32, lr=3e-3),
                24, (100, 1000), True, 3, (128, 96), 100, 20_000)
FULL = WangPlan(("en", "xa", "xc", "xd", "xe"), 5000, 10, 100_000, 5000, ("en", "zh", "fr", "es", "de"), 20_000,
                512, 3, 8, ContextConfig(k=1, maxlen=150, stage1_epochs=1, rounds=5, m=10_000, pairs_per_draw=1000,
                                         pairs_per_round=100_000, batch_size=64, lr=1e-4),
                150, (1, 100, 1000, 10_000), True, 1, (512, 384), 1000, 1_000_000)


def shared_pipeline(sentences: Sequence[str], max_size: int | None = None) -> TextPipeline:
    """One word vocabulary over every language (identical strings share an id), ``</s>`` ends each sentence.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    tok = WordTokenizer()
    vocab = Vocab.build(tok.tokenize_batch(list(sentences)), 1, max_size, specials=list(SPECIALS))
    return TextPipeline(tok, vocab, eos="</s>")


def encoder_fn(encoder: torch.nn.Module, pipeline: TextPipeline, max_tokens: int):
    """``texts -> vectors`` with the frozen encoder (sentences alone).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    def encode(texts: Sequence[str]) -> np.ndarray:
        return embed_corpus(encoder, *token_matrix(pipeline, texts, max_tokens))
    return encode


# ----------------------------------------------------------------------------------- evaluation
def xnli_accuracy(encode, bench: XNLIBenchmark, hidden: Sequence[int], seed: int) -> dict[str, float]:
    """Table 1 protocol: frozen ``[u, v, u*v, |u-v|]``, MLP on English train, early stop on English dev, test all.
    Runs on one torch thread: the small MLP is several times faster without thread hand-offs.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    feats = lambda d: wang_pair_features(encode(list(d.premises)), encode(list(d.hypotheses)))  # noqa: E731
    with single_thread():
        tests = {lang: (feats(d), np.asarray(d.labels)) for lang, d in bench.test.items()}
        return frozen_mlp_transfer(feats(bench.train), np.asarray(bench.train.labels), feats(bench.dev["en"]),
                                   np.asarray(bench.dev["en"].labels), tests, hidden=hidden, seed=seed)


def classification_accuracy(encode, docs: MonoDocs, hidden: Sequence[int], seed: int) -> dict[str, float]:
    """Table 2 protocol: help-module classification trained on one language, tested on another (``"en-es"`` =
    train English, test Spanish), on held-out pages; the MLP runs on one torch thread.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    out = {}
    vec = {lang: (encode(tr), y, encode(te), yt) for lang, (tr, y, te, yt) in docs.labelled.items()}
    for a in docs.langs:
        xa, ya, _, _ = vec[a]
        n_dev = len(xa) // 5
        tests = {b: (vec[b][2], vec[b][3]) for b in docs.langs}
        with single_thread():
            acc = frozen_mlp_transfer(xa[n_dev:], ya[n_dev:], xa[:n_dev], ya[:n_dev], tests, hidden=hidden, seed=seed)
        out.update({f"{a}-{b}": v for b, v in acc.items()})
    return out


def gold_precisions(encode, docs: MonoDocs, n_keep: int) -> dict[str, float]:
    """Mined-pair precision (percent) on each held-out gold alignment.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    out = {}
    for (a, b), (sa, sb) in docs.gold.items():
        out[f"{a}-{b}"] = gold_pair_precision(encode(sa), encode(sb), n_keep=min(n_keep, len(sa)))
    return out


# ----------------------------------------------------------------------------------- runs
@dataclass
class CorpusRun:
    """One corpus trained with the two stages: its data, pipeline, tokenised corpus and :class:`WangRun`.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    docs: MonoDocs
    pipeline: TextPipeline
    corpus: DocCorpus
    run: WangRun
    stage1_model: WangModel


def train_corpus(docs: MonoDocs, plan: WangPlan, evaluate, *, config: ContextConfig | None = None,
                 device: str | torch.device = "cpu", seed: int = 0) -> CorpusRun:
    """Build the shared vocabulary, the model, and run stage 1 + rounds, calling ``evaluate(encode)`` each round.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    config = config or plan.config
    pipeline = shared_pipeline(docs.sentences)
    corpus = doc_corpus(pipeline, docs.sentences, docs.doc_ids, docs.lang_ids, plan.max_tokens)
    model = build_wang_model(len(pipeline.vocab), d_model=plan.d_model, n_layers=plan.n_layers,
                             n_heads=plan.n_heads, max_len=config.maxlen, dropout=0.1, seed=seed)
    saved: dict[str, WangModel] = {}

    def on_round(r: int, m: WangModel, pairs) -> dict[str, Any]:
        if r == 0:
            saved["stage1"] = copy.deepcopy(m)
        return evaluate(encoder_fn(m.encoder, pipeline, plan.max_tokens))

    with single_thread():
        run = train_wang(model, corpus, config, on_round=on_round, device=device, seed=seed)
    return CorpusRun(docs, pipeline, corpus, run, saved["stage1"])


def continue_with(base: CorpusRun, plan: WangPlan, config: ContextConfig, evaluate, *,
                  device: str | torch.device = "cpu", seed: int = 0) -> WangRun:
    """Stage 2 again from ``base``'s stage-1 model with another ``config`` (the ``m`` study).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    model = copy.deepcopy(base.stage1_model)
    start = WangRun(model, config, stage1_losses=base.run.stage1_losses)
    on_round = lambda r, m, p: evaluate(encoder_fn(m.encoder, base.pipeline, plan.max_tokens))  # noqa: E731
    with single_thread():
        return train_wang(model, base.corpus, config, on_round=on_round, start=start, device=device, seed=seed)


def mlm_baseline(base: CorpusRun, plan: WangPlan, *, device: str | torch.device = "cpu", seed: int = 0):
    """The shared-vocabulary MLM Transformer (same size, same sentences, no context); returns ``encode``.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    model = build_wang_model(len(base.pipeline.vocab), d_model=plan.d_model, n_layers=plan.n_layers,
                             n_heads=plan.n_heads, max_len=plan.config.maxlen, seed=seed)
    stoi = base.pipeline.vocab.stoi
    with single_thread():
        train_mlm(model.encoder, base.corpus.tokens, base.corpus.lengths, mask_id=stoi["<mask>"],
                  special_ids=[stoi[t] for t in SPECIALS], epochs=plan.mlm_epochs, lr=plan.config.lr,
                  device=device, seed=seed)
    return encoder_fn(model.encoder, base.pipeline, plan.max_tokens)


def averaged_vectors(docs: MonoDocs, pairs_of: Mapping[str, Sequence[tuple[str, str]]], *, dim: int = 32,
                     how: str = "procrustes", muse_epoch: int = 20_000, seed: int = 0):
    """The paper's "mean" rows: skip-gram vectors per language (on its training text), each non-English space
    mapped onto English, a sentence = the mean of its words' mapped vectors. ``how="procrustes"``: Procrustes on
    a dictionary (``pairs_of[lang]`` = (English word, word) pairs); ``how="muse"``: chapter 5's unsupervised
    pipeline (adversarial game of ``muse_epoch`` samples x 3 epochs, then refinement; the dictionary only
    scores, never trains). Returns ``(encode, {lang: dictionary pairs in both vocabularies})``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if how not in ("procrustes", "muse"):
        raise ValueError(f"how must be 'procrustes' or 'muse', got {how!r}.")
    tok = WordTokenizer()
    with tempfile.TemporaryDirectory(prefix="xsent-wang-") as tmp:  # vectors of this run only: never the shared cache
        spaces = {lang: sentences_space(lang, docs.of(lang), dim=dim, seed=seed, epochs=10, min_count=1,
                                        sample=1e-3, cache_dir=tmp) for lang in docs.langs}
    maps, used = {docs.langs[0]: np.eye(dim, dtype=np.float32)}, {}
    en = spaces[docs.langs[0]]
    for lang in docs.langs[1:]:
        sp = spaces[lang]
        rows = [(en.word2id[a], sp.word2id[b]) for a, b in pairs_of.get(lang, []) if a in en.word2id and b in sp.word2id]
        used[lang] = len(rows)
        if len(rows) < 2:
            raise ValueError(f"only {len(rows)} dictionary pairs of {lang} are in both vocabularies.")
        if how == "procrustes":
            ia, ib = map(list, zip(*rows))
            W = procrustes(sp.vectors[ib], en.vectors[ia])
        else:
            word_pairs = [(b, a) for a, b in pairs_of[lang]]
            half = len(word_pairs) // 2
            setting = make_setting(sp, en, word_pairs[:half], word_pairs[half:], dictionary="gold lexicon (scoring only)",
                                   seed=seed)
            config = AdversarialConfig(dis_hidden=256, epoch_size=muse_epoch, n_epochs=3,
                                       most_frequent=min(len(sp), len(en)), criterion_words=min(len(sp), len(en)))
            W = unsupervised_align(setting, config, n_restarts=1, seed=seed, max_rank=min(len(sp), len(en))).W
        maps[lang] = np.asarray(W, np.float32).T  # procrustes convention: X W^T ~ Y
    lookup = {}
    for lang, sp in spaces.items():
        mapped = sp.vectors @ maps[lang]
        for w, i in sp.word2id.items():
            lookup.setdefault(w, mapped[i])

    def encode(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), dim), np.float32)
        for r, words in enumerate(tok.tokenize_batch(list(texts))):
            vecs = [lookup[w] for w in words if w in lookup]
            if vecs:
                out[r] = np.mean(vecs, axis=0)
        return out
    return encode, used


def world_setup(plan: WangPlan, seed: int) -> tuple[SyntheticWorld, MonoDocs, XNLIBenchmark]:
    """The world, its monolingual documents and its XNLI-shaped benchmark.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    world = SyntheticWorld(seed)
    docs = world_documents(world, plan.world_langs, n_docs=plan.n_docs, n_sents=plan.n_sents)
    n = plan.n_nli_test
    bench = synthetic_xnli(world, plan.world_langs, plan.n_nli_train, n, n, 10, 10)
    return world, docs, bench


def real_languages(data_dir: str | Path, n_langs: int) -> list[str]:
    """English and up to ``n_langs - 1`` other languages (sorted codes) with ``data_dir/monolingual/<lang>.txt``.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    folder = Path(data_dir) / "monolingual"
    found = sorted(p.stem for p in folder.glob("*.txt") if p.is_file())
    return (["en"] if "en" in found else []) + [lang for lang in found if lang != "en"][: max(0, n_langs - 1)]


def real_documents(data_dir: str | Path, plan: WangPlan, *, max_sentences: int | None,
                   max_bitext: int | None = None, with_bitext: bool = True) -> tuple[MonoDocs, list[str]]:
    """The user's monolingual text (:func:`~xsent_lib.data.monodocs.text_documents`) in as many languages as the
    plan's world has, with a Moses bitext ``data_dir/bitext/<name>.{en,<lang>}`` per language when there is one
    (first ``max_bitext`` lines: leakage check and held-out gold). Returns the corpus and the bitext files'
    prefixes read. Raises ``FileNotFoundError`` when English and one other language are not both there.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = real_languages(data_dir, len(plan.world_langs))
    if len(langs) < 2 or langs[0] != "en":
        raise FileNotFoundError(f"monolingual text needs en.txt and one other <lang>.txt in {Path(data_dir) / 'monolingual'}"
                                f" (found {langs}); the method learns a space shared by two or more languages.")
    bitext, read = {}, []
    for lang in langs[1:] if with_bitext else []:
        prefixes = sorted(str(p)[: -len(lang) - 1] for p in (Path(data_dir) / "bitext").glob(f"*.{lang}")
                          if Path(str(p)[: -len(lang) - 1] + ".en").is_file())
        if prefixes:
            bi = load_moses_bitext(prefixes[0], "en", lang, max_bitext)
            bitext[lang] = (list(bi.source), list(bi.target))
            read.append(Path(prefixes[0]).name)
    docs = text_documents(data_dir, langs, max_sentences=max_sentences, bitext=bitext, n_gold=500)
    return docs, read


def _head(d: NLIData, n: int | None) -> NLIData:
    cut = slice(None) if n is None else slice(0, n)
    return NLIData(d.premises[cut], d.hypotheses[cut], d.labels[cut], None if d.genres is None else d.genres[cut],
                   None if d.languages is None else d.languages[cut], d.n_skipped)


def real_xnli_bench(data_dir: str | Path, langs: Sequence[str], *, max_train: int | None,
                    max_eval: int | None) -> XNLIBenchmark:
    """Table 1 on the real XNLI: English MultiNLI training pairs from XNLI-MT (first ``max_train``), XNLI 1.0
    dev (English, for early stopping) and test in every language of ``langs`` that XNLI has (first ``max_eval``
    pairs of each). Raises ``ValueError`` when XNLI has none of ``langs`` besides English.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    have = set(load_xnli(data_dir, "test").languages or ())
    targets = [lang for lang in langs if lang != "en" and lang in have]
    if not targets:
        raise ValueError(f"XNLI in {data_dir} has none of the languages {list(langs[1:])} of the monolingual text "
                         f"(it has {sorted(have)}).")
    dev = {"en": _head(load_xnli(data_dir, "dev", "en"), max_eval)}
    test = {lang: _head(load_xnli(data_dir, "test", lang), max_eval) for lang in ["en", *targets]}
    return XNLIBenchmark(load_xnli_mt(data_dir, "en", max_train), dev, test, {}, {},
                         source=f"XNLI 1.0 (test: {', '.join(['en', *targets])}) + XNLI-MT English train from {data_dir}")


def leakage_table(docs: MonoDocs) -> list[dict[str, Any]]:
    """Gold translation pairs with both sides in training, per language pair (must be 0).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return [{"corpus": docs.name, "pair": f"{a}-{b}", "gold pairs checked": len(p),
             "dropped before training": docs.dropped.get(f"{a}-{b}", 0),
             "leaked": parallel_leakage(docs, p, a, b)} for (a, b), p in docs.gold_pairs.items()]


def shared_words(docs: MonoDocs) -> dict[str, list[str]]:
    """For each non-English language, the word types of its training text that are also word types of the English
    training text (as the shared vocabulary tokenises them), most frequent first: the identical strings mining can
    start from. Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    tok = WordTokenizer()
    counts = {lang: Counter(w for ws in tok.tokenize_batch(docs.of(lang)) for w in ws) for lang in docs.langs}
    en = counts[docs.langs[0]]
    return {lang: [w for w, _ in counts[lang].most_common() if w in en] for lang in docs.langs[1:]}


def help_setup(plan: WangPlan, seed: int, english_from: str | None = None) -> MonoDocs:
    """The LibreOffice-help corpus of the plan (English from the Bible with ``english_from="bible"``).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return lohelp_documents(plan.help_langs, max_sentences=plan.help_sentences, n_gold=500, n_labelled=plan.n_labelled,
                            english_from=english_from, seed=seed)


def m_configs(plan: WangPlan) -> list[ContextConfig]:
    """Stage-2 configs of the ``m`` study: the default with ``m`` replaced (pairs per draw capped at ``m``).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return [replace(plan.config, m=m, pairs_per_draw=min(plan.config.pairs_per_draw, m),
                    rounds=min(PLUS_ROUND, plan.config.rounds)) for m in plan.m_values]


# ----------------------------------------------------------------------------------- tables and claims
def non_english_mean(acc: Mapping[str, float | None]) -> float | None:
    """The paper's "overall": mean of the non-English columns.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    vals = [v for k, v in acc.items() if k != "en" and v is not None]
    return float(np.mean(vals)) if vals else None


def table_1_row(acc: Mapping[str, float]) -> dict[str, float | None]:
    """Our per-language accuracies under the paper's columns (:data:`PAPER_COLUMN`) plus ``overall``.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return {PAPER_COLUMN.get(k, k): v for k, v in acc.items()} | {"overall": non_english_mean(acc)}


def direction_mean(acc: Mapping[str, float], cross: bool = True) -> float | None:
    """Mean accuracy over cross-lingual directions (``a != b``) of a classification result.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    vals = [v for k, v in acc.items() if (k.split("-")[0] != k.split("-")[1]) == cross]
    return float(np.mean(vals)) if vals else None


def _mean_precision(result: Mapping[str, Any]) -> float | None:
    vals = list(result.get("precision", {}).values())
    return float(np.mean(vals)) if vals else None


def plus_round(per_round: Sequence[Any]) -> int:
    """The round that the "+iteration" rows report: :data:`PLUS_ROUND` (the paper's 3 rounds), or the last round
    when the run has fewer. Tables 1-2 and the claims that compare with them all read this round, so a claim
    always compares the numbers its table shows. ``per_round`` holds one entry per round, round 0 first.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if len(per_round) < 2:
        raise ValueError(f"need round 0 and at least one regression round, got {len(per_round)} entries.")
    return min(PLUS_ROUND, len(per_round) - 1)


def claim_numbers(per_round_xnli: Sequence[Mapping[str, Any]], help_rounds: Sequence[Mapping[str, Any]],
                  domain: Mapping[str, Any] | None, mean_row: Mapping[str, float] | None,
                  muse_row: Mapping[str, float] | None = None) -> dict[str, float | None]:
    """The numbers the claims compare, from the run. "+iteration" is round :func:`plus_round` (as in the tables);
    mined-pair precision compares round 0 with the last round (no table of the paper reports it). The plateau
    number is the largest *absolute* change of XNLI overall between round :data:`PLUS_ROUND` and any later round
    (``None`` when the run stops at round 3): a fall counts against "flat" as much as a rise.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    xo = [non_english_mean(r["xnli"]) for r in per_round_xnli]
    ho = [direction_mean(r["cls"]) for r in help_rounds]
    n3 = plus_round(xo)
    later = [abs(v - xo[PLUS_ROUND]) for v in xo[PLUS_ROUND + 1:]] if len(xo) > PLUS_ROUND + 1 else []
    out = {"+iteration round": float(n3), "xnli overall, round 0": xo[0], "xnli overall, +iteration": xo[n3],
           "xnli overall, last round": xo[-1],
           "xnli gain over rounds 1-2": xo[min(2, len(xo) - 1)] - xo[0],
           "xnli largest change after round 3 (absolute)": max(later) if later else None,
           "help cross-lingual, round 0": ho[0] if ho else None,
           "help cross-lingual, +iteration": ho[plus_round(ho)] if len(ho) > 1 else None,
           "mean (MUSE) overall": non_english_mean(muse_row) if muse_row else None,
           "mean (Procrustes) overall": non_english_mean(mean_row) if mean_row else None,
           "precision round 0": float(np.mean(list(per_round_xnli[0]["precision"].values()))),
           "precision last round": float(np.mean(list(per_round_xnli[-1]["precision"].values()))),
           "help precision round 0": _mean_precision(help_rounds[0]) if help_rounds else None,
           "help precision last round": _mean_precision(help_rounds[-1]) if help_rounds else None}
    out["help cross-lingual, same domain"] = domain.get("same") if domain else None
    out["help cross-lingual, Bible English"] = domain.get("mismatch") if domain else None
    return out


def _cells(table: str, row: str, cols: Sequence[str]) -> list[PaperCell]:
    return [PaperCell("wang2019", table, row, c) for c in cols]


def wang_claims(numbers: Mapping[str, float | None]) -> list[dict[str, Any]]:
    """The paper's claims checked on ``numbers`` (:func:`claim_numbers`).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    plus = _cells("table_1", "Our Approach / +iteration", ("overall",))
    claims = [
        Claim("iteration improves cross-lingual transfer (XNLI overall, +iteration vs -iteration)",
              "xnli overall, +iteration", ">", "xnli overall, round 0",
              _cells("table_1", "Our Approach / -iteration", ("overall",)) + plus),
        Claim("iteration improves cross-lingual document classification (+iteration vs -iteration)",
              "help cross-lingual, +iteration", ">", "help cross-lingual, round 0",
              _cells("table_2", "Our Approach / -iteration", ("en-es",)) +
              _cells("table_2", "Our Approach / +iteration", ("en-es",))),
        Claim("mined pairs get better with the rounds (precision on held-out gold, synthetic world)",
              "precision last round", ">", "precision round 0", "not in the paper (no gold alignment there)"),
        Claim("mined pairs get better with the rounds (precision on held-out gold, help pages)",
              "help precision last round", ">", "help precision round 0", "not in the paper (no gold alignment there)"),
        Claim("more than ~3 rounds plateau: no later round moves XNLI overall by 1 point or more from round 3 "
              "(absolute change)", "xnli largest change after round 3 (absolute)", "<", 1.0,
              "Figure 3 (no numbers printed): flat after 3 rounds", note="not testable when the run stops at round 3"),
        Claim("training corpora from mismatched domains cost accuracy", "help cross-lingual, Bible English", "<",
              "help cross-lingual, same domain", "Figure 2: 'decreases about 6%'"),
        Claim("the method beats averaged word vectors aligned without a dictionary (MUSE; the paper's mean row)",
              "xnli overall, +iteration", ">", "mean (MUSE) overall",
              _cells("table_1", "Unsupervised / mean", ("overall",)) + plus,
              note="not testable when the run has no MUSE row"),
        Claim("the method beats averaged word vectors aligned by Procrustes on a gold dictionary",
              "xnli overall, +iteration", ">", "mean (Procrustes) overall",
              "not in the paper: our extra row, supervised by a dictionary"),
    ]
    return check_claims(claims, numbers)


def run_summary(numbers: Mapping[str, float | None], per_round_xnli: Sequence[Mapping[str, Any]],
                n_test: int | None = None) -> list[str]:
    """Sentences stating what the run produced (computed, so they cannot contradict it); ``n_test`` (test pairs per
    language) adds the binomial standard error of one accuracy, the test set's own sampling noise.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    fmt = lambda v: "n/a" if v is None else f"{v:.1f}"  # noqa: E731
    xo = [non_english_mean(r["xnli"]) for r in per_round_xnli]
    best, n3 = int(np.argmax(xo)), plus_round(xo)
    change = numbers.get("xnli largest change after round 3 (absolute)")
    lines = [f"XNLI overall (non-English mean) by round: {', '.join(fmt(v) for v in xo)}; best at round {best}. "
             f"Tables 1-2 and the claims read round {n3} as '+iteration' (the paper's 3 rounds).",
             f"Figure 3's shape: the paper's curves rise most over rounds 1-2, stay flat after round 3 and fall after "
             f"round 5. Ours: {numbers['xnli gain over rounds 1-2']:+.1f} points over rounds 1-2; largest absolute "
             f"change after round 3: " + (f"{change:.1f} points." if change is not None else "n/a (the run stops "
                                          "at round 3 or before)."),
             f"Mined-pair precision on held-out gold: {fmt(numbers['precision round 0'])} at round 0, "
             f"{fmt(numbers['precision last round'])} at the last round (synthetic world); "
             f"{fmt(numbers['help precision round 0'])} and {fmt(numbers['help precision last round'])} (help pages).",
             f"Help-page classification across languages: {fmt(numbers['help cross-lingual, round 0'])} before the "
             f"rounds, {fmt(numbers['help cross-lingual, +iteration'])} at '+iteration'."]
    for key, what in (("mean (MUSE) overall", "by MUSE (no dictionary)"),
                      ("mean (Procrustes) overall", "by Procrustes on a gold dictionary")):
        if numbers.get(key) is not None:
            lines.append(f"Averaged word vectors aligned {what}: {fmt(numbers[key])} overall, against "
                         f"{fmt(numbers['xnli overall, +iteration'])} for '+iteration'.")
    if numbers.get("help cross-lingual, Bible English") is not None:
        lines.append(f"English from the Bible instead of the help: {fmt(numbers['help cross-lingual, Bible English'])}"
                     f" against {fmt(numbers['help cross-lingual, same domain'])} with both sides from the help.")
    if n_test and xo[n3] is not None:
        p = xo[n3] / 100.0
        se = 100.0 * float(np.sqrt(p * (1.0 - p) / n_test))
        lines.append(f"Each XNLI accuracy is measured on {n_test} test pairs per language: from the test sample "
                     f"alone, an accuracy near {100 * p:.0f}% has a standard error of about {se:.1f} points, so "
                     f"differences under about {2 * se:.1f} points are within the test set's noise. How far another "
                     "seed moves them is not measured (one seed).")
    return lines
