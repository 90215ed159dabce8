"""Text processing: tokenisers, vocabularies, the pipeline joining them, and length batching.

Book: chapter 1 (Data: tokenisation and vocabularies).
"""
from __future__ import annotations

from xsent_lib.text.batching import flatten_ids, length_buckets, pad_batch, pad_csr
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.release import (
    DropUnknownPipeline,
    InferSentTokenizer,
    nltk_word_tokenize,
    release_tokenize,
)
from xsent_lib.text.tokenizers import (
    CharTrigramTokenizer,
    LetterTokenizer,
    PTBWordTokenizer,
    SentencePieceTokenizer,
    Tokenizer,
    WordTokenizer,
    check_sentences,
    train_sentencepiece,
)
from xsent_lib.text.vocab import BOS_TOKEN, EOS_TOKEN, PAD_TOKEN, UNK_TOKEN, Vocab

__all__ = [
    "BOS_TOKEN",
    "EOS_TOKEN",
    "PAD_TOKEN",
    "UNK_TOKEN",
    "CharTrigramTokenizer",
    "DropUnknownPipeline",
    "InferSentTokenizer",
    "LetterTokenizer",
    "PTBWordTokenizer",
    "SentencePieceTokenizer",
    "TextPipeline",
    "Tokenizer",
    "Vocab",
    "WordTokenizer",
    "check_sentences",
    "flatten_ids",
    "length_buckets",
    "nltk_word_tokenize",
    "pad_batch",
    "pad_csr",
    "release_tokenize",
    "train_sentencepiece",
]
