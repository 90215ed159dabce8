"""The whitespace-chunk cache of TextPipeline.encode_flat gives the ids of tokenising every sentence
on its own, for every tokeniser and for text that tries to break it (case rules, odd spaces,
normalisation that makes or eats spaces)."""

import numpy as np
import pytest

from xsent_lib.text import chunk_cache, pipeline
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import (
    CharTrigramTokenizer,
    LetterTokenizer,
    PTBWordTokenizer,
    SentencePieceTokenizer,
    WordTokenizer,
    train_sentencepiece,
)
from xsent_lib.text.vocab import PAD_TOKEN, UNK_TOKEN, Vocab

TRICKY = [
    "The cat sat on the mat.", "the cat  sat\ton the\nmat .", "  leading and trailing  ",
    "ΟΔΟΣ ΚΑΙ ΣΟΦΙΑΣ ΟΔΟΣ.", "Straße GROSS İstanbul", "l’homme d'affaires n’est pas là",
    "don't can't it's we're", "हिन्दी भाषा में लिखा", "我爱自然语言处理。", "emoji 😀 ok",
    "no\u00a0break\u3000ideo\u2009thin", "ctrl\x1cfile\x1dsep\x1e\x1funit", "next\x85line\x0bvt",
    "diaeresis ¨b a¨ ¨", "ﬁne ligature ﬀ", "zero\u200bwidth \u200b", "", "   ", "\t\n",
    "well-known x-ray re-enter", "ünïcödé NFD: u\u0308nico\u0301de", "a", "a a a a",
] * 2


def _fuzz(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    alphabet = list("abcXYZ σΣß'’-.,!0") + [" ", "  ", "\t", "\u00a0", "\x1c", "\x85", "\u0308",
                                            "¨", "\u200b", "ﬁ", "İ", "n't", "'s"]
    return ["".join(rng.choice(alphabet, rng.integers(0, 30))) for _ in range(n)]


def _reference(pipe: TextPipeline, sentences: list[str]) -> list[list[int]]:
    """Each sentence tokenised alone, truncated, empty read as <unk>, with bos/eos."""
    rows = []
    for s in sentences:
        toks = pipe.tokenizer.tokenize(s)[: pipe.max_len] or [pipe.vocab.unk_token]
        if pipe.bos:
            toks = [pipe.bos, *toks]
        if pipe.eos:
            toks = [*toks, pipe.eos]
        rows.append(pipe.vocab.lookup(toks).tolist())
    return rows


def _rows(flat: np.ndarray, offsets: np.ndarray) -> list[list[int]]:
    return [flat[a:b].tolist() for a, b in zip(offsets[:-1], offsets[1:], strict=True)]


@pytest.fixture
def spy(monkeypatch):
    """Counts the calls that went through the chunk cache."""
    calls = []
    real = chunk_cache.chunk_cached_ids

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "chunk_cached_ids", counted)
    return calls


def _cached(tokenizer):
    """Any whitespace-local tokeniser may cache its chunks (on by default for trigrams only)."""
    tokenizer.cache_chunks = True
    return tokenizer


@pytest.mark.parametrize("tokenizer", [_cached(WordTokenizer()),
                                       _cached(WordTokenizer(lowercase=False)),
                                       CharTrigramTokenizer(), _cached(PTBWordTokenizer()),
                                       _cached(LetterTokenizer())], ids=lambda t: t.kind)
@pytest.mark.parametrize("options", [{}, {"max_len": 3}, {"bos": "<s>", "eos": "</s>"}])
def test_chunk_cache_equals_tokenising_each_sentence(tokenizer, options, spy):
    sentences = TRICKY + _fuzz(300, seed=1)
    pipe = TextPipeline.fit(TRICKY[:12], tokenizer, **options)  # later sentences have unknowns
    flat, offsets = pipe.encode_flat(sentences)
    assert spy, "the tokeniser did not take the chunk cache"
    assert _rows(flat, offsets) == _reference(pipe, sentences)


def test_the_cache_is_on_where_it_is_measured_faster():
    assert CharTrigramTokenizer().cache_chunks
    assert not WordTokenizer().cache_chunks and not PTBWordTokenizer().cache_chunks


def _piece_pipeline(sp: SentencePieceTokenizer, own_ids: bool) -> TextPipeline:
    if own_ids:
        return TextPipeline(sp, sp.vocab())
    vocab = Vocab([PAD_TOKEN, UNK_TOKEN, *sorted(set(sp.pieces()) - {UNK_TOKEN})], unk_token=UNK_TOKEN)
    return TextPipeline(sp, vocab, max_len=5)


@pytest.mark.parametrize("model_type", ["unigram", "bpe"])
@pytest.mark.parametrize("own_ids", [True, False])
def test_sentencepiece_encodes_whole_sentences(tmp_path, model_type, own_ids, spy):
    train = TRICKY + _fuzz(400, seed=2)
    sp = train_sentencepiece(train, 120, tmp_path / model_type, model_type=model_type)
    pipe = _piece_pipeline(sp, own_ids)
    sentences = TRICKY + _fuzz(300, seed=3)
    assert _rows(*pipe.encode_flat(sentences)) == _reference(pipe, sentences)
    assert not spy, "sentencepiece is measured faster on whole sentences than through the cache"


def test_gather_csr_rows_repeats_and_reorders():
    flat, offsets = np.arange(6), np.array([0, 2, 2, 6])
    out, new = chunk_cache.gather_csr_rows(flat, offsets, np.array([2, 0, 1, 0]))
    assert _rows(out, new) == [[2, 3, 4, 5], [0, 1], [], [0, 1]]


@pytest.mark.parametrize("tokenizer", [_cached(WordTokenizer()), CharTrigramTokenizer()],
                         ids=lambda t: t.kind)
def test_text_holding_the_join_marker_and_no_text(tokenizer, spy):
    pipe = TextPipeline.fit(["a b", "c"], tokenizer)
    sentences = ["a\x00b c", "\x00", "c", "", "a b"]
    assert _rows(*pipe.encode_flat(sentences)) == _reference(pipe, sentences)
    assert _rows(*pipe.encode_flat(sentences[2:])) == _reference(pipe, sentences[2:])
    flat, offsets = pipe.encode_flat([])
    assert len(flat) == 0 and offsets.tolist() == [0]
    assert len(spy) == 3


def test_all_blank_sentences_give_unknowns():
    pipe = TextPipeline.fit(["a b"], CharTrigramTokenizer())
    flat, offsets = pipe.encode_flat(["", "  ", "\n"])
    assert offsets.tolist() == [0, 1, 2, 3] and set(flat.tolist()) == {pipe.vocab.unk_id}
