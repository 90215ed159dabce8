"""Chapter 10 (XLM): shared vocabulary, pretraining, TLM batches, fine-tuning, the recipe's smoke path, claims."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from xsent_lib.data import xlm_text
from xsent_lib.data.formats import NLIData, load_xnli_mt
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.eval import xlm as xlm_eval
from xsent_lib.eval.word_pairs import single_piece_pairs, translation_distances
from xsent_lib.losses.lm import (
    MaskedBatch,
    clm_loss,
    frequency_smoothed_weights,
    language_sampling_probs,
    mlm_loss,
)
from xsent_lib.recipes import xlm as rec
from xsent_lib.results import xlm_claims, xlm_tables
from xsent_lib.results.paper import side_by_side
from xsent_lib.text import EOS_TOKEN
from xsent_lib.train import xlm_runs
from xsent_lib.train.checkpoint import load_checkpoint
from xsent_lib.train.xlm import (
    XLMConfig,
    build_xlm,
    heldout_loss,
    language_unigram_entropy,
    lm_batches,
    lm_step_loss,
    pretrain_xlm,
    tlm_batch,
    unigram_entropy,
)
from xsent_lib.train.xlm_corpus import (
    MASK_TOKEN,
    build_lm_corpus,
    sample_sentences,
    shared_vocabulary,
    vocabulary_stats,
)
from xsent_lib.train.xlm_xnli import FinetuneConfig, finetune_xnli, pair_rows, xlm_accuracy

pytestmark = pytest.mark.usefixtures("one_thread")
FULL = Path(__file__).parent / "fixtures" / "xnli_full"


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A shared vocabulary and corpus over English and two invented languages, with bitext."""
    world = SyntheticWorld(5)
    mono = {lang: world.sentences(600, lang) for lang in ("en", "xa", "xd")}
    bitext = {("en", lang): (list(p.src), list(p.tgt))
              for lang, p in (("xa", world.parallel(200, "en", "xa")), ("xd", world.parallel(200, "en", "xd")))}
    pipe = shared_vocabulary(mono, 400, tmp_path_factory.mktemp("spm"), alpha=0.5, seed=0)
    corpus = build_lm_corpus(pipe, mono, bitext, stream_len=32, heldout_rows=6, max_pair_len=30)
    return world, mono, corpus


def test_vocabulary_has_the_xlm_specials_and_counts(small):
    _, mono, corpus = small
    vocab = corpus.pipeline.vocab
    assert vocab.itos[:4] == ["<pad>", "<unk>", EOS_TOKEN, MASK_TOKEN]
    assert corpus.special_ids == (0, 1, 2, 3) and corpus.mask_id == 3
    assert vocab.counts[4:].sum() > 0 and vocab.counts[:4].sum() == 0
    stats = vocabulary_stats(corpus.pipeline, mono)
    assert set(stats) == {"en", "xa", "xd"} and all(s["pieces per word"] >= 1.0 for s in stats.values())
    # every sentence of a stream ends with </s>: the separator count equals the sentence count
    flat, offsets = corpus.pipeline.encode_flat(mono["en"])
    assert int((flat == 2).sum()) == len(mono["en"])


def test_sample_sentences_follows_the_smoothed_distribution():
    corpora = {"big": [f"b{i}" for i in range(9000)], "small": [f"s{i}" for i in range(1000)]}
    for alpha in (1.0, 0.5, 0.3):
        draw = sample_sentences(corpora, 20_000, alpha, seed=1)
        share = sum(s.startswith("s") for s in draw) / len(draw)
        expected = language_sampling_probs([9000, 1000], alpha)[1]
        assert share == pytest.approx(expected, abs=0.015)
    assert language_sampling_probs([9000, 1000], 0.3)[1] > language_sampling_probs([9000, 1000], 0.5)[1]


def test_tlm_batch_positions_reset_and_language_ids_exactly(small):
    _, _, corpus = small
    src, tgt = corpus.pairs[("en", "xa")]
    index = [0, 1, 2]
    pb = tlm_batch(corpus, ("en", "xa"), index)
    en_id, xa_id = corpus.lang_ids["en"], corpus.lang_ids["xa"]
    for row, i in enumerate(index):
        ls, lt = len(src[i]), len(tgt[i])
        assert int(pb.lengths[row]) == ls + lt and int(pb.split[row]) == ls
        assert pb.token_ids[row, : ls + lt].tolist() == [*src[i].tolist(), *tgt[i].tolist()]
        assert pb.positions[row, : ls + lt].tolist() == [*range(ls), *range(lt)]
        assert pb.langs[row, :ls].tolist() == [en_id] * ls and pb.langs[row, ls: ls + lt].tolist() == [xa_id] * lt
        assert pb.token_ids[row, ls + lt:].eq(0).all() and pb.positions[row, ls + lt:].eq(0).all()
        assert int(pb.token_ids[row, ls - 1]) == 2 and int(pb.token_ids[row, ls + lt - 1]) == 2  # </s> ends each side
    swapped = tlm_batch(corpus, ("en", "xa"), [0], swap=True)
    lt = len(tgt[0])
    assert swapped.langs[0, :lt].eq(xa_id).all() and swapped.positions[0, lt] == 0


def test_mlm_tlm_batches_alternate_and_never_mask_specials(small):
    _, _, corpus = small
    batches = lm_batches(corpus, XLMConfig(objective="mlm+tlm", batch_size=8, pair_batch=8), 6, seed=0)
    assert ["positions" in b for b in batches] == [False, True] * 3
    for b in batches:
        chosen = b["targets"][b["selected"]]
        assert chosen.numel() > 0 and not torch.isin(chosen, torch.tensor(corpus.special_ids)).any()
        assert not b["selected"][b["inputs"] == 0].any()
        if "positions" not in b:  # an MLM batch holds one language
            assert b["langs"].unique().numel() == 1
    clm = lm_batches(corpus, XLMConfig(objective="clm", batch_size=4), 2, seed=0)
    assert all("ids" in b and "targets" not in b for b in clm)


def test_training_losses_read_nothing_back_and_equal_the_checked_ones(small):
    """Inside trusted_batch the losses gather MLM targets by the batch's sorted ``chosen`` indices and
    CLM's dense rows by slicing, and skip the count check: no host read, the same loss and gradients."""
    _, _, corpus = small
    model = build_xlm(corpus, XLMConfig(objective="mlm+tlm", n_layers=1, d_model=32, n_heads=2),
                      seed=0).eval()
    batches = lm_batches(corpus, XLMConfig(objective="mlm+tlm", batch_size=8, pair_batch=8), 2, seed=0)
    batches += lm_batches(corpus, XLMConfig(objective="clm", batch_size=4), 1, seed=0)
    for b in batches:
        if "chosen" in b:
            assert torch.equal(b["chosen"], torch.nonzero(b["selected"].reshape(-1)).squeeze(1))
        fast = lm_step_loss(model, b)
        fast_grads = torch.autograd.grad(fast, list(model.parameters()), allow_unused=True)
        if "ids" in b:  # outside trusted_batch: every check, boolean gathers
            checked = clm_loss(model, b["ids"], b["lengths"], langs=b["langs"])
        else:
            masked = MaskedBatch(b["inputs"], b["targets"], b["selected"], b["replaced_by"])
            checked = mlm_loss(model, masked, b["lengths"], langs=b["langs"], positions=b.get("positions"))
        grads = torch.autograd.grad(checked, list(model.parameters()), allow_unused=True)
        assert torch.equal(fast, checked)
        assert all((a is None and c is None) or torch.equal(a, c) for a, c in zip(fast_grads, grads))


class LanguageUnigram(torch.nn.Module):
    """A context-free predictor that knows each language's MLM target distribution (from its training streams,
    add-0.5 smoothed) and ignores everything else: it reads only the language id of each position."""

    def __init__(self, corpus, target_exponent: float) -> None:
        super().__init__()
        size = len(corpus.pipeline.vocab)
        weights = frequency_smoothed_weights(corpus.pipeline.vocab.counts, target_exponent, corpus.special_ids)
        table = torch.full((len(corpus.lang_ids), size), -30.0)
        for lang, rows in corpus.streams.items():
            mass = (torch.bincount(rows.reshape(-1), minlength=size).double() + 0.5) * weights.double()
            table[corpus.lang_ids[lang]] = torch.log(mass.clamp(min=1e-12) / mass.sum()).float()
        self.table = torch.nn.Parameter(table, requires_grad=False)

    def hidden_states(self, token_ids, lengths, langs=None, positions=None, causal=False):
        return torch.nn.functional.one_hot(langs, self.table.shape[0]).float()

    def lm_logits(self, hidden):
        return hidden @ self.table


def test_tiny_model_mlm_loss_beats_a_predictor_that_knows_only_the_language(tmp_path):
    """The baseline is per language and on <mask> positions only: a context-free predictor that knows the
    language fails it (it would pass the pooled entropy), a tiny model trained with MLM passes it."""
    world = SyntheticWorld(5)
    mono = {lang: world.sentences(1000, lang) for lang in ("en", "xa")}
    pipe = shared_vocabulary(mono, 400, tmp_path / "spm", alpha=0.5, seed=0)
    corpus = build_lm_corpus(pipe, mono, stream_len=16, heldout_rows=40)
    margin = 0.1
    mean = lambda f: float(np.mean([f(lang) for lang in corpus.heldout]))  # noqa: E731
    pooled = unigram_entropy(pipe.vocab.counts, corpus.special_ids)
    blind, baseline = {}, {}
    for exponent in (0.0, 0.5):  # BERT's uniform choice of targets and XLM's count ** -0.5
        baseline[exponent] = float(np.mean(list(language_unigram_entropy(corpus, exponent).values())))
        predictor = LanguageUnigram(corpus, exponent)
        blind[exponent] = mean(lambda lang: heldout_loss(predictor, corpus, "mlm", lang, target_exponent=exponent))
        assert blind[exponent] > baseline[exponent] - margin, (exponent, blind, baseline)
    assert language_unigram_entropy(corpus) == pytest.approx(
        {lang: unigram_entropy(torch.bincount(rows.reshape(-1), minlength=len(pipe.vocab)).numpy(),
                               corpus.special_ids) for lang, rows in corpus.streams.items()})
    assert blind[0.0] < pooled - margin  # the entropy of the languages pooled was too easy a bar
    # XLM's count ** -0.5 targets keep a model this small on the unigram plateau for thousands of steps; the
    # test trains with uniform targets and compares with the baseline of the same exponent
    config = XLMConfig(objective="mlm", d_model=32, n_heads=2, n_layers=1, dropout=0.0, lr=5e-3, warmup=400,
                       batch_size=32, steps=1200, eval_every=300, max_len=32, target_exponent=0.0)
    run = pretrain_xlm(corpus, config, device="cpu", seed=0, checkpoint_path=tmp_path / "xlm.pt")
    trained = float(np.mean(list(run.heldout.values())))
    assert trained == pytest.approx(mean(lambda lang: heldout_loss(run.model, corpus, "mlm", lang,
                                                                   target_exponent=0.0)))
    assert trained < baseline[0.0] - margin, (trained, baseline)
    assert mean(lambda lang: heldout_loss(run.model, corpus, "mlm", lang, score="selected",
                                          target_exponent=0.0)) < trained  # kept pieces show the answer
    assert run.history.dev[0] > min(run.history.dev)  # it learned along training
    assert run.tokens == 1200 * 32 * 16 and run.tokens_per_second > 0
    with pytest.raises(ValueError, match="score"):
        heldout_loss(run.model, corpus, "mlm", "en", score="kept")
    fresh = build_xlm(corpus, config, seed=1)
    load_checkpoint(tmp_path / "xlm.pt", fresh)
    for a, b in zip(fresh.state_dict().values(), run.model.state_dict().values()):
        torch.testing.assert_close(a, b.cpu())


def test_finetuning_learns_and_leaves_the_pretrained_model_untouched(small):
    _, _, corpus = small
    encoder = build_xlm(corpus, XLMConfig(d_model=32, n_heads=2, n_layers=1, dropout=0.0, max_len=64), seed=0)
    before = {k: v.clone() for k, v in encoder.state_dict().items()}
    words = ["the boy drew a map", "a girl sings", "the dog runs", "a cat sleeps"]
    rng = np.random.default_rng(0)
    prem = [words[i] for i in rng.integers(0, 4, 240)]
    # label = which of three fixed hypotheses is paired: learnable from the hypothesis alone
    hyps = ["the dog runs .", "a girl sings .", "the boy drew a map ."]
    labels = rng.integers(0, 3, 240)
    data = NLIData(prem, [hyps[y] for y in labels], labels)
    row = pair_rows(encoder, ["a b"], ["c"])[0]
    assert int(row[0]) == 2 and int((row == 2).sum()) == 3
    ft = finetune_xnli(encoder, data, data, lang_id=0, config=FinetuneConfig(epochs=4, lr=3e-3, batch_size=16),
                       device="cpu", seed=0)
    assert ft.dev_acc > 90.0
    assert xlm_accuracy(ft.model, data, 0, device="cpu") == pytest.approx(ft.dev_acc)
    for k, v in encoder.state_dict().items():
        torch.testing.assert_close(v, before[k])
    with pytest.raises(ValueError, match="lang_id"):
        finetune_xnli(encoder, data, data, lang_id=7, device="cpu")


def test_word_pair_distances(small):
    _, _, corpus = small
    vocab = corpus.pipeline.vocab
    whole = [t for t in vocab.itos if t.startswith("\u2581") and len(t) > 3][:4]
    words = [t[1:] for t in whole]
    pairs = single_piece_pairs(corpus.pipeline, [(words[0], words[1]), (words[2], words[3]), (words[0], words[0]),
                                                 (words[0], "zzqqxxjj")])
    assert [(a, b) for a, b, _, _ in pairs] == [(words[0], words[1]), (words[2], words[3])]
    X = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    d = translation_distances(X, X * 3)
    assert d["cosine"] == pytest.approx(1.0) and d["L2"] == pytest.approx(2 * np.linalg.norm(X, axis=1).mean())
    assert d["cosine of random pairs"] < 1.0 and d["n"] == 3
    with pytest.raises(ValueError):
        translation_distances(X, X[:2])


def test_recipe_smoke_path(tmp_path):
    plan = replace(rec.SMOKE, n_mono=300, n_parallel=200, n_train=150, n_dev=40, n_test=40, vocab_size=300,
                   bilstm_width=8, heldout_rows=5)
    bench, world, mono, bitext = xlm_text.synthetic_data(plan, 0)
    corpus = xlm_runs.lm_corpus(mono, bitext, plan.vocab_size, plan, tmp_path, 0)
    assert all(rows.shape == (5, plan.stream_len) for rows in corpus.heldout.values())  # the plan's held-out size
    runs = {obj: xlm_runs.pretrain(corpus, replace(plan.pretrain, steps=20, eval_every=10), obj, device="cpu", seed=0)
            for obj in ("mlm", "mlm+tlm")}
    rows = {obj: xlm_runs.zero_shot(run, bench, plan, device="cpu", seed=0)[1] for obj, run in runs.items()}
    assert xlm_runs.translate_train_languages(plan, bench, real=False) == ["xa"]
    rows["tt"] = {"en": rows["mlm+tlm"]["en"], "xa": xlm_runs.translate_train(runs["mlm+tlm"], bench, "xa", plan,
                                                                        device="cpu", seed=0)}
    rows["bilstm"] = rec.aligned_bilstm(bench, world, plan, device="cpu", seed=0)
    assert all(0.0 <= v <= 100.0 for accs in rows.values() for v in accs.values())
    table = xlm_tables.table_4_12_ours(rows, bench.languages)
    shown = side_by_side("thesis", "table_4_12", table, rename=xlm_tables.SHORT_ROWS)
    assert shown.loc["XLM (MLM)", ("fr", "paper")] == pytest.approx(76.5)
    assert shown.loc["XLM (MLM+TLM)", ("avg", "paper")] == pytest.approx(75.1)
    ft = xlm_runs.zero_shot(runs["mlm+tlm"], bench, plan, device="cpu", seed=0)[0]
    assert xlm_runs.translate_test_languages(bench, real=False) == ["xa"]
    rows["ttest"] = {"en": rows["mlm+tlm"]["en"],
                     "xa": xlm_runs.translate_test(ft, corpus, bench, "xa", device="cpu")}
    # exact translations: translate-test reads the English test pairs themselves
    assert rows["ttest"]["xa"] == pytest.approx(rows["mlm+tlm"]["en"])
    wide = xlm_tables.table_4_12_wide(xlm_tables.table_4_12_ours(rows, bench.languages), bench.languages)
    assert wide.shape == (9, 32) and wide.loc["TRANSLATE-TEST, XLM (MLM+TLM)", ("fr | xa", "paper")] == 79.0
    assert wide.loc["Artetxe and Schwenk (2018)", ("ur", "paper")] == 61.0
    assert np.isnan(wide.loc["Artetxe and Schwenk (2018)", ("ur", "ours")])
    panels = xlm_eval.figure_panels(corpus, plan.pretrain, 0, n_tokens=10)
    assert [len(p["tokens"]) for p in panels][0] == 10 and panels[1]["positions"][0] == 0
    tlm = panels[1]
    reset = tlm["positions"].index(0, 1)
    assert set(tlm["langs"][:reset]) == {"en"} and set(tlm["langs"][reset:]) == {"xa"}
    lm_plan = replace(plan.lm_synthetic, config=replace(plan.lm_synthetic.config, steps=10, eval_every=10))
    lm = xlm_runs.lm_table({x: world.sentences(150, x) for x in ("xa", "xe", "xb")}, lm_plan,
                      world.sentences(200, "xa")[150:], tmp_path / "lm", stream_len=16, device="cpu", seed=0)
    assert [r["training languages"] for r in lm] == list(xlm_runs.LM_ROWS) and all(r["perplexity"] > 1 for r in lm)
    # equal exposure of the low-resource language: k languages, k times the steps; the cost sums what ran
    assert [r["steps"] for r in lm] == [10, 20, 20, 30]
    assert xlm_runs.lm_table_cost(lm_plan, 16) == {"models": 4, "steps": 80,
                                              "pieces processed": 80 * lm_plan.config.batch_size * 16}
    with pytest.raises(ValueError, match="stream_len"):
        xlm_runs.lm_table_cost(lm_plan, 0)
    assert side_by_side("thesis", "table_4_15", xlm_tables.lm_table_ours(lm, "Nepali perplexity")).shape == (4, 2)


def test_full_keeps_xlm_settings_and_book_leaves_the_real_lm_table_to_full():
    """XLM's count ** -0.5 targets and streams of 256 stay in full; the book's smaller choices are its own."""
    assert rec.FULL.pretrain.target_exponent == rec.FULL.real_pretrain.target_exponent == 0.5
    assert rec.FULL.stream_len == 256 and rec.FULL.lm_real is not None and rec.BOOK.lm_real is None
    assert rec.BOOK.pretrain.target_exponent == 0.0 and rec.BOOK.stream_len < rec.FULL.stream_len
    # the held-out streams give every language at least 2,048 pieces to score in book and full
    assert all(p.heldout_rows * p.stream_len >= 2048 for p in (rec.BOOK, rec.GPU, rec.FULL))
    assert rec.BOOK.pretrain.d_model < rec.GPU.pretrain.d_model < rec.FULL.pretrain.d_model
    assert rec.GPU.lm_real is not None and rec.GPU.n_mono > rec.BOOK.n_mono
    full_real = xlm_runs.lm_table_cost(rec.FULL.lm_real, rec.FULL.stream_len)
    assert full_real["steps"] == 8 * rec.FULL.lm_real.config.steps


def test_real_xnli_layout_keeps_the_languages_it_has():
    bench = xlm_text.real_xnli_data(rec.FULL, FULL, ("fr", "de"))
    assert bench.languages == ["en", "fr"] and any("skipped" in n for n in bench.notes)
    # translate-train reads the XNLI-MT training pairs of every language that has them, not the plan's "xd"
    assert xlm_runs.translate_train_languages(rec.BOOK, bench, real=True) == ["fr"]
    french = load_xnli_mt(FULL, "fr", rec.FULL.n_train)
    assert bench.translate(list(bench.train.premises), "en", "fr") == list(french.premises)
    assert bench.translate(list(bench.train.hypotheses), "en", "fr") == list(french.hypotheses)
    with pytest.raises(FileNotFoundError):
        xlm_text.real_xnli_data(rec.FULL, FULL, ("de",))


def test_claims_logic():
    rows = {"mlm": {"en": 70.0, "xa": 50.0, "xd": 46.0}, "mlm+tlm": {"en": 71.0, "xa": 60.0, "xd": 50.0},
            "scratch": {"en": 60.0, "xa": 40.0, "xd": 47.0},
            "bilstm": {"en": 60.0, "xa": 40.0, "xd": 40.0}, "tt": {"en": 71.0, "xd": 58.0},
            "ttest": {"en": 71.0, "xa": 71.0, "xd": 71.0}}
    lm = [{"training languages": k, "perplexity": p} for k, p in zip(xlm_runs.LM_ROWS, (100.0, 90.0, 80.0, 85.0))]
    space = {"XLM": {"cosine": 0.5, "L2": 1.0}, "Procrustes (MUSE stand-in)": {"cosine": 0.3, "L2": 0.5},
             "Concat": {"cosine": 0.4, "L2": 2.0}}
    check = xlm_eval.MLMCheck(heldout_mlm_loss=3.0, unigram_entropy=5.0, heldout_mlm_loss_every_position=2.0,
                              pooled_unigram_entropy=6.0)
    numbers = xlm_claims.claim_numbers(rows, lm, None, space, check, real_xnli=False)
    assert numbers.mlm_mean == pytest.approx(48.0) and numbers.mlm_tlm_mean_on_tt == pytest.approx(50.0)
    assert numbers.mlm_min_gain_over_scratch == pytest.approx(-1.0)
    got = {c["id"]: c for c in rec.CLAIM_SET.check(numbers)}
    holds = {k: c["holds"] for k, c in got.items()}
    assert holds["ch10.mlm_above_chance"] is True  # 46 > 33.3 + 10 in every target language
    assert holds["ch10.mlm_beats_no_pretraining"] is False  # xd: 46 < 47, although the mean is higher
    assert got["ch10.mlm_beats_no_pretraining"]["weaker holds"] is True
    assert holds["ch10.mlm_beats_supervised_sota"] is None  # LASER is not here
    assert got["ch10.mlm_beats_supervised_sota"]["weaker holds"] is True
    assert holds["ch10.tlm_boost"] is True and holds["ch10.translate_train_beats_zero_shot"] is True
    assert holds["ch10.beats_translate_test"] is False  # exact translations read the English test set
    # drops: related 20, distant 10: 20 >= 2 x 10 holds; both (85) is not below related (80)
    assert holds["ch10.synthetic_lm_related_much_larger"] is True
    assert holds["ch10.synthetic_lm_both_lowest"] is False
    assert holds["ch10.real_lm_related_much_larger"] is None  # not run in this profile
    assert holds["ch10.lookup_closer"] is False and got["ch10.lookup_closer"]["weaker holds"] is True
    assert holds["ch10.lookup_semeval"] is None and holds["ch10.mlm_learns_context"] is True
    chance = {k: {"en": 33.3, "xa": 33.3} for k in ("mlm", "mlm+tlm", "scratch", "bilstm")}
    low = xlm_claims.claim_numbers(chance, None, None, None, check, real_xnli=True)
    low_rows = {c["id"]: c for c in rec.CLAIM_SET.check(low)}
    # zero-shot at chance is a result (fails); data that is not here is not testable, with its reason
    assert low_rows["ch10.mlm_above_chance"]["holds"] is False and low_rows["ch10.tlm_boost"]["holds"] is False
    assert low_rows["ch10.lookup_closer"]["holds"] is None and "no Table 4.16 space" in low_rows[
        "ch10.lookup_closer"]["ours"]
    assert "no translations of its test sets" in low.translate_test_mean.why
    nan = xlm_claims.claim_numbers(rows | {"mlm": {"en": 70.0, "xa": float("nan"), "xd": 46.0}}, lm, None, space, check,
                            real_xnli=False)
    assert {c["id"]: c["holds"] for c in rec.CLAIM_SET.check(nan)}["ch10.tlm_boost"] is False  # no number: fails
    assert set(xlm_claims.XLMClaimNumbers.__dataclass_fields__) == set(numbers.as_metrics())


def test_figure_4_6_draws_real_panels_and_rejects_ragged_ones(small):
    from xsent_lib.viz.xlm import xlm_inputs

    _, _, corpus = small
    panels = xlm_eval.figure_panels(corpus, XLMConfig(), 0, n_tokens=12)
    fig = xlm_inputs(panels)
    assert len(fig.axes) == 2
    bad = dict(panels[0], positions=panels[0]["positions"][:-1])
    with pytest.raises(ValueError, match="differ in length"):
        xlm_inputs([bad])


def test_throughput_records_read_the_committed_benchmarks(tmp_path) -> None:
    """Chapter 10's speed table reads every committed bench_xlm record, CPU and GPU, with its provenance."""
    from xsent_lib.chapter import REPO_ROOT

    rows = xlm_tables.throughput_records(REPO_ROOT / "benchmarks" / "results")
    records = {r["record"] for r in rows}
    assert {"xlm.json", "xlm_gpu.json", "xlm_book_gpu.json", "xlm_book_cpu1.json"} <= records
    assert all(r["tokens/s"] > 0 and r["commit"] != "unknown" for r in rows)
    assert {r["objective"] for r in rows} == {"clm", "mlm", "mlm+tlm"}
    gpu = [r for r in rows if r["record"] == "xlm_gpu.json"]
    assert all(r["device"].startswith("cuda") and "d=512, 6 layers" in r["size"] for r in gpu)
    assert xlm_tables.throughput_records(tmp_path) == []


def test_throughput_sentences_and_the_size_of_each_profile(small) -> None:
    """The speed sentences are computed from the records; the size table counts parameters, tokens and passes."""
    _, _, corpus = small
    speed = [{"record": r, "device": d, "objective": o, "tokens/s": t, "parameters": p, "d_model": 64,
              "n_layers": 2, "batch_size": 32, "stream_len": 32}
             for r, d, p, o, t in [("gpu_book", "cuda:0", 10, "mlm", 400.0), ("gpu_book", "cuda:0", 10, "mlm+tlm", 100.0),
                                   ("cpu_book", "cpu", 10, "mlm", 100.0), ("cpu_book", "cpu", 10, "mlm+tlm", 50.0)]]
    lines = xlm_tables.throughput_sentences(speed, gpu_book="gpu_book", cpu_book="cpu_book", gpu_large="absent")
    assert lines[0].startswith("Book size") and "mlm 4.0x, mlm+tlm 2.0x" in lines[0]
    assert lines[1] == "gpu_book: slowest objective mlm+tlm (100 tokens/s; mlm 400)." and len(lines) == 2
    plan = replace(rec.SMOKE, targets=("xa", "xd"), stream_len=32, vocab_size=len(corpus.pipeline.vocab),
                   pretrain=XLMConfig(d_model=64, n_heads=4, n_layers=2, batch_size=32, pair_batch=8, steps=100,
                                      eval_every=50, max_len=64))
    rows = {r["run"]: r for r in xlm_eval.pretraining_scale(plan, corpus, corpus, real_xnli=False, speed=speed)}
    mlm, tlm = rows["XNLI, MLM"], rows["XNLI, MLM+TLM"]
    assert mlm["tokens processed"] == 100 * 32 * 32 and mlm["H100 estimate (min)"] == pytest.approx(102400 / 400 / 60)
    fresh = build_xlm(corpus, plan.pretrain)  # three languages in the corpus, as in the plan (en + 2 targets)
    assert mlm["parameters"] == xlm_runs.model_parameters(len(corpus.pipeline.vocab), plan.pretrain, 3) == sum(
        p.numel() for p in fresh.parameters())
    pair_len = np.mean([len(a) + len(b) for s, t in corpus.pairs.values() for a, b in zip(s, t)])
    assert tlm["tokens processed"] == pytest.approx(50 * 32 * 32 + 50 * 8 * pair_len)
    per_sentence = sum(int(corpus.streams[x].numel() + corpus.heldout[x].numel()) for x in corpus.streams) / 1800
    assert mlm["tokens of text"] == pytest.approx(3 * plan.n_mono * per_sentence)
    assert tlm["tokens of text"] == pytest.approx(3 * plan.n_mono * per_sentence + 2 * plan.n_parallel * pair_len)
    assert mlm["passes over the text"] == pytest.approx(mlm["tokens processed"] / mlm["tokens of text"])
    assert rows["real text, MLM+TLM"]["H100 estimate (min)"] is None  # no record of that size
    said = xlm_tables.scale_sentences(list(rows.values()), "smoke")
    assert len(said) == 4 and said[-1].startswith("Estimate, not a measurement") and "gpu_book" in said[-1]
