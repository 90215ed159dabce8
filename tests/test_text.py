"""Tests for xsent_lib.text: vocabularies, tokenisers, the pipeline and batching."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from xsent_lib.text import (
    CharTrigramTokenizer,
    SentencePieceTokenizer,
    TextPipeline,
    Tokenizer,
    Vocab,
    WordTokenizer,
    flatten_ids,
    length_buckets,
    pad_batch,
    pad_csr,
    train_sentencepiece,
)

CORPUS = [
    "The cat sat on the mat.",
    "A dog barked at the cat!",
    "the cat, the dog and the bird",
    "Birds don't bark; well-known fact.",
]


def test_vocab_build_orders_by_count_then_alphabet_and_respects_limits():
    vocab = Vocab.build([["b", "a", "c", "a"], ["c", "d", "a"]], min_count=1)
    assert vocab.itos == ["<pad>", "<unk>", "a", "c", "b", "d"]
    assert vocab.pad_id == 0 and vocab.unk_id == 1
    assert vocab.counts.tolist() == [0, 0, 3, 2, 1, 1]
    assert Vocab.build([["b", "a", "c", "a"], ["c", "d", "a"]], min_count=2).itos == ["<pad>", "<unk>", "a", "c"]
    assert len(Vocab.build([["b", "a", "c", "a"], ["c"]], max_size=3)) == 3


def test_vocab_lookup_unknown_and_flat():
    vocab = Vocab.build([["x", "y", "y"]])
    ids = vocab.lookup(["y", "x", "zzz"])
    assert ids.dtype == np.int64 and ids.tolist() == [2, 3, 1]
    flat, offsets = vocab.lookup_flat([["y"], [], ["x", "q"]])
    assert flat.tolist() == [2, 3, 1] and offsets.tolist() == [0, 1, 1, 3]
    assert vocab.tokens_of([2, 3]) == ["y", "x"]


def test_vocab_json_round_trip(tmp_path):
    vocab = Vocab.build([t.split() for t in CORPUS], specials=("<pad>", "<unk>", "<s>"))
    vocab.save(tmp_path / "v.json")
    again = Vocab.load(tmp_path / "v.json")
    assert again == vocab and again.unk_id == vocab.unk_id
    np.testing.assert_allclose(again.probabilities().sum(), 1.0)


def test_vocab_errors():
    with pytest.raises(TypeError, match="single string"):
        Vocab.build([["a"]]).lookup("a")
    with pytest.raises(ValueError, match="unique"):
        Vocab(["<pad>", "<unk>", "a", "a"])
    with pytest.raises(ValueError, match="unk_token"):
        Vocab(["<pad>", "a"])
    with pytest.raises(FileNotFoundError):
        Vocab.load("/nonexistent/v.json")
    with pytest.raises(ValueError, match="no counts"):
        Vocab(["<pad>", "<unk>"]).probabilities()


def test_word_tokenizer_splits_punctuation_and_keeps_inner_joins():
    tok = WordTokenizer()
    assert tok.tokenize("Birds don't bark; well-known fact.") == ["birds", "don't", "bark", ";", "well-known", "fact", "."]
    assert WordTokenizer(lowercase=False).tokenize("Hi, Bob") == ["Hi", ",", "Bob"]
    assert tok.tokenize_batch(["A b", ""]) == [["a", "b"], []]


def test_char_trigrams_hand_checked():
    tok = CharTrigramTokenizer()
    assert tok.tokenize("a Cat") == [" a ", " ca", "cat", "at "]
    assert tok.tokenize("to be!") == [" to", "to ", " be", "be ", " ! "]
    assert tok.tokenize("   ") == []
    # brute force: per-word padded trigrams, concatenated
    words = WordTokenizer().tokenize(CORPUS[3])
    brute = [p[i : i + 3] for w in words for p in [f" {w} "] for i in range(len(p) - 2)]
    assert tok.tokenize(CORPUS[3]) == brute


def test_tokenizer_errors_name_the_problem():
    with pytest.raises(TypeError, match="single string"):
        WordTokenizer().tokenize_batch("a sentence")
    with pytest.raises(TypeError, match=r"sentences\[1\]"):
        WordTokenizer().tokenize_batch(["ok", 3])
    with pytest.raises(ValueError, match="whitespace"):
        CharTrigramTokenizer(boundary="#")
    with pytest.raises(ValueError, match="Unknown tokenizer kind"):
        Tokenizer.from_config({"kind": "nope"})


def test_sentencepiece_trains_on_tiny_corpus_and_round_trips(tmp_path):
    sents = CORPUS * 10
    sp = train_sentencepiece(sents, vocab_size=40, model_prefix=tmp_path / "sp", seed=3)
    assert (tmp_path / "sp.model").is_file()
    pieces = sp.tokenize("the cat sat")
    assert "".join(pieces).replace("▁", " ").strip() == "the cat sat"
    assert sp.tokenize_batch(["the cat sat", "dog"]) == [pieces, sp.tokenize("dog")]
    vocab = sp.vocab()
    assert vocab.itos[0] == "<pad>" and vocab.itos[vocab.unk_id] == "<unk>"
    again = Tokenizer.from_config(sp.config())
    assert isinstance(again, SentencePieceTokenizer) and again.tokenize("the bird") == sp.tokenize("the bird")
    # same seed, same data -> same model
    sp2 = train_sentencepiece(sents, vocab_size=40, model_prefix=tmp_path / "sp2", seed=3)
    assert sp2.pieces() == sp.pieces()
    with pytest.raises(FileNotFoundError):
        SentencePieceTokenizer(model_file=tmp_path / "missing.model")


def test_pipeline_encode_with_bos_eos_truncation_and_empty():
    pipe = TextPipeline.fit(CORPUS, WordTokenizer(), bos="<s>", eos="</s>", max_len=3)
    ids = pipe.encode(["the cat sat on", "", "zebra"])
    v = pipe.vocab
    assert ids[0].tolist() == [v.stoi["<s>"], v.stoi["the"], v.stoi["cat"], v.stoi["sat"], v.stoi["</s>"]]
    assert ids[1].tolist() == [v.stoi["<s>"], v.unk_id, v.stoi["</s>"]]
    assert ids[2].tolist() == [v.stoi["<s>"], v.unk_id, v.stoi["</s>"]]
    flat, offsets = pipe.encode_flat(["the cat sat on", "", "zebra"])
    np.testing.assert_array_equal(flat, np.concatenate(ids))
    assert offsets.tolist() == [0, 5, 8, 11]
    plain = TextPipeline.fit(CORPUS, WordTokenizer())
    assert [x.tolist() for x in plain.encode(["cat", ""])] == [[plain.vocab.stoi["cat"]], [plain.vocab.unk_id]]
    with pytest.raises(ValueError, match="not in the vocabulary"):
        TextPipeline(WordTokenizer(), plain.vocab, bos="<s>")


def test_pipeline_save_load_round_trip(tmp_path):
    sp = train_sentencepiece(CORPUS * 5, vocab_size=30, model_prefix=tmp_path / "m", seed=0)
    for pipe in (
        TextPipeline.fit(CORPUS, CharTrigramTokenizer(), bos="<s>"),
        TextPipeline(sp, sp.vocab(), eos="<unk>"),
    ):
        pipe.save(tmp_path / "p.json")
        again = TextPipeline.load(tmp_path / "p.json")
        assert again.vocab == pipe.vocab
        for a, b in zip(again.encode(CORPUS), pipe.encode(CORPUS)):
            np.testing.assert_array_equal(a, b)


def test_pad_batch_and_flatten():
    tokens, lengths = pad_batch([np.array([5, 6, 7]), np.array([8]), np.array([], dtype=np.int64)], pad_id=0)
    assert tokens.dtype == torch.long and lengths.dtype == torch.long
    assert tokens.tolist() == [[5, 6, 7], [8, 0, 0], [0, 0, 0]] and lengths.tolist() == [3, 1, 0]
    flat, offsets = flatten_ids([np.array([1, 2]), np.array([3])])
    assert flat.tolist() == [1, 2, 3] and offsets.tolist() == [0, 2, 3]
    with pytest.raises(ValueError):
        pad_batch([])


def test_pad_csr_equals_pad_batch_of_the_slices():
    rng = np.random.default_rng(1)
    seqs = [rng.integers(1, 50, size=n) for n in (3, 1, 6, 2, 4)]
    flat, offsets = flatten_ids(seqs)
    rows = np.array([2, 0, 4])
    tok, lens = pad_csr(flat, offsets, rows)
    ref_tok, ref_lens = pad_batch([seqs[i] for i in rows])
    assert torch.equal(tok, ref_tok) and torch.equal(lens, ref_lens)


def test_length_buckets_sorted_complete_and_stable():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 20, size=103)
    buckets = length_buckets(lengths, batch_size=10)
    assert [len(b) for b in buckets] == [10] * 10 + [3]
    allidx = np.concatenate(buckets)
    assert sorted(allidx.tolist()) == list(range(103))
    assert (np.diff(lengths[allidx]) <= 0).all()
    assert length_buckets([2, 3, 2, 3], 4)[0].tolist() == [1, 3, 0, 2]
    with pytest.raises(ValueError, match="batch_size"):
        length_buckets([1, 2], 0)


def test_shuffled_length_batches_cover_every_row_once_sorted_within_windows():
    from xsent_lib.text.batching import shuffled_length_batches

    lengths = np.random.default_rng(0).integers(1, 40, size=1003)
    batches = shuffled_length_batches(lengths, 16, np.random.default_rng([3, 1]), window_batches=4)
    rows = np.concatenate(batches)
    assert np.array_equal(np.sort(rows), np.arange(1003))  # a partition of the rows
    assert all(len(b) <= 16 for b in batches) and sum(len(b) < 16 for b in batches) <= 16  # one short batch per window
    assert all((np.diff(lengths[b]) <= 0).all() for b in batches)  # longest first inside a batch
    # sorting happens inside windows of 4 batches only: mean padding is far below unsorted batches
    pad = np.mean([lengths[b].max() - lengths[b].mean() for b in batches])
    rand = np.random.default_rng(1).permutation(1003)
    pad_random = np.mean([lengths[rand[i:i + 16]].max() - lengths[rand[i:i + 16]].mean() for i in range(0, 1003, 16)])
    assert pad < 0.5 * pad_random
    again = shuffled_length_batches(lengths, 16, np.random.default_rng([3, 1]), window_batches=4)
    assert all(np.array_equal(a, b) for a, b in zip(batches, again))  # same rng state, same epoch
    other = shuffled_length_batches(lengths, 16, np.random.default_rng([3, 2]), window_batches=4)
    assert not all(np.array_equal(a, b) for a, b in zip(batches, other))
    with pytest.raises(ValueError, match="batch_size"):
        shuffled_length_batches(lengths, 0, np.random.default_rng(0))
