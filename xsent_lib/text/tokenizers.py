"""Tokenisers with one interface: words (plain, Penn-Treebank-like, letters only), character
trigrams (Wieting) and sentencepiece.

Every tokeniser turns a string into a list of token strings (``tokenize``), a list of strings
into a list of token lists (``tokenize_batch``), and describes itself as a JSON-ready dict
(``config``) so a :class:`~xsent_lib.text.pipeline.TextPipeline` can be saved and rebuilt
without the original files.
Book: chapter 1 (Data: tokenisation and vocabularies).
"""
from __future__ import annotations

import base64
import itertools
import re
import sys
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import ClassVar

import numpy as np
import sentencepiece as spm

from xsent_lib.text.chunk_cache import gather_csr_rows
from xsent_lib.text.vocab import PAD_TOKEN, Vocab

# A word is a run of letters/digits/underscores, optionally joined by inner hyphens or
# apostrophes ("well-known", "don't"); every other non-space character is its own token.
_WORD_RE = re.compile(r"\w+(?:[-'’]\w+)*|[^\w\s]", re.UNICODE)


def check_sentences(sentences: object, name: str = "sentences") -> list[str]:
    """Return ``sentences`` as a list after checking it is a sequence of strings.

    Raises a TypeError naming the first offending item, and refuses a bare string (a common
    slip that would otherwise be read as a list of characters).
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """
    if isinstance(sentences, (str, bytes)):
        raise TypeError(
            f"{name} must be a list of strings, not a single string; wrap it: [{name}].")
    if not isinstance(sentences, Sequence):
        raise TypeError(f"{name} must be a list or tuple of strings, got "
                        f"{type(sentences).__name__}.")
    for i, s in enumerate(sentences):
        if not isinstance(s, str):
            raise TypeError(f"{name}[{i}] is {type(s).__name__}, not str; every sentence must be a "
                            "string.")
    return list(sentences)


class Tokenizer(ABC):
    """The common interface of every tokeniser: ``tokenize``, ``tokenize_batch``, ``config``.

    Book: chapter 1 (Data: tokenisation and vocabularies).
    """

    kind: ClassVar[str]
    # True: TextPipeline tokenises each distinct whitespace-delimited chunk once
    # (``xsent_lib.text.chunk_cache``). Only for a tokeniser whose tokens never hold or look across
    # whitespace (words, PTB words, letters, trigrams). On by default where it is measured faster
    # (benchmarks/bench_tokenise.py, 128,000 sentences): trigrams 1.3-1.6x; words lose (0.8-0.9x),
    # and sentencepiece segments whole sentences faster in C++ than the cache's Python passes.
    cache_chunks: bool = False
    _registry: ClassVar[dict[str, type[Tokenizer]]] = {}

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        Tokenizer._registry[cls.kind] = cls

    @abstractmethod
    def tokenize(self, sentence: str) -> list[str]:
        """Split one sentence into token strings.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """

    def tokenize_batch(self, sentences: Sequence[str]) -> list[list[str]]:
        """Tokenise many sentences (checked to be strings).

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        return [self.tokenize(s) for s in check_sentences(sentences)]

    @abstractmethod
    def config(self) -> dict:
        """A JSON-ready dict from which :meth:`from_config` rebuilds an identical tokeniser.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """

    @staticmethod
    def from_config(config: dict) -> Tokenizer:
        """Rebuild any tokeniser from its :meth:`config` dict (dispatching on ``config["kind"]``).

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        kind = config.get("kind")
        if kind not in Tokenizer._registry:
            raise ValueError(f"Unknown tokenizer kind {kind!r}; known: "
                             f"{sorted(Tokenizer._registry)}.")
        cls = Tokenizer._registry[kind]
        return cls._from_config({k: v for k, v in config.items() if k != "kind"})

    @classmethod
    def _from_config(cls, options: dict) -> Tokenizer:
        return cls(**options)


class WordTokenizer(Tokenizer):
    """Regex word tokeniser: words (with inner hyphens/apostrophes) and single punctuation marks.

    ``lowercase=True`` by default: the book's corpora are small and case doubles the vocabulary.
    InferSent used cased GloVe 840B and Moses tokenisation; pass ``lowercase=False`` for that, and
    note this regex only approximates Moses (it keeps "don't" whole where Moses splits "do n't").
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """

    kind = "word"

    def __init__(self, lowercase: bool = True) -> None:
        self.lowercase = bool(lowercase)

    def tokenize(self, sentence: str) -> list[str]:
        """Split one sentence into words and punctuation marks.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        return _WORD_RE.findall(sentence.lower() if self.lowercase else sentence)

    def tokenize_batch(self, sentences: Sequence[str]) -> list[list[str]]:
        """Tokenise many sentences (one regex pass each, no per-word Python work).

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        findall = _WORD_RE.findall
        if self.lowercase:
            return [findall(s.lower()) for s in check_sentences(sentences)]
        return [findall(s) for s in check_sentences(sentences)]

    def config(self) -> dict:
        """JSON-ready description. Book: chapter 1 (Data: tokenisation and vocabularies)."""
        return {"kind": self.kind, "lowercase": self.lowercase}


class CharTrigramTokenizer(Tokenizer):
    """Character trigrams of each word padded with one boundary character on each side.

    "a cat" with the default boundary " " gives [" a ", " ca", "cat", "at "]: the Charagram units
    behind Wieting et al.'s Trigram encoder. Words are those of :class:`WordTokenizer`; trigrams
    never span two words. Wieting et al. do not state case handling; we lowercase by default.
    Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
    """

    kind = "char_trigram"
    cache_chunks = True

    def __init__(self, lowercase: bool = True, boundary: str = " ") -> None:
        if not isinstance(boundary, str) or len(boundary) != 1 or not boundary.isspace():
            raise ValueError("boundary must be one whitespace character (it can never occur inside "
                             f"a word), got {boundary!r}.")
        self.lowercase = bool(lowercase)
        self.boundary = boundary
        # Padded words joined by ONE shared boundary: a trigram lies inside a padded word exactly
        # when its middle character is not the boundary (words never contain whitespace). The
        # lookahead finds all overlapping such trigrams in one C-level scan.
        self._trigram_re = re.compile(f"(?=(.[^{re.escape(boundary)}].))", re.DOTALL)

    def tokenize(self, sentence: str) -> list[str]:
        """Trigrams of every padded word of one sentence, in reading order.

        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        b = self.boundary
        words = _WORD_RE.findall(sentence.lower() if self.lowercase else sentence)
        return self._trigram_re.findall(b + b.join(words) + b) if words else []

    def config(self) -> dict:
        """JSON-ready description. Book: chapter 8 (Paraphrastic embeddings from bitext)."""
        return {"kind": self.kind, "lowercase": self.lowercase, "boundary": self.boundary}


def _flat_ids(id_lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Lists of ids in CSR form (flat int64 ids, ``len + 1`` offsets)."""
    lengths = np.fromiter(map(len, id_lists), dtype=np.int64, count=len(id_lists))
    offsets = np.zeros(len(id_lists) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    flat = np.fromiter(itertools.chain.from_iterable(id_lists), dtype=np.int64,
                       count=int(offsets[-1]))
    return flat, offsets


# Sentences per chunk of a threaded encode: large enough that each call amortises its overhead,
# small enough that every thread gets several chunks (the last ones finish together).
_CHUNK_MIN, _CHUNKS_PER_THREAD = 512, 4


def _chunked_flat_ids(encode, sentences: list[str],
                      num_threads: int) -> tuple[np.ndarray, np.ndarray]:
    """``_flat_ids(encode(sentences))`` over chunks in ``num_threads`` Python threads.

    sentencepiece's batched call releases the GIL while it segments, so chunks run in parallel;
    each thread also flattens its own chunk, so the GIL-bound list work overlaps other threads'
    segmentation instead of following all of it. One single-threaded call for small inputs.
    """
    n = len(sentences)
    size = max(_CHUNK_MIN, -(-n // (num_threads * _CHUNKS_PER_THREAD)))
    if num_threads == 1 or n <= size:
        return _flat_ids(encode(sentences))
    chunks = [sentences[i : i + size] for i in range(0, n, size)]
    with ThreadPoolExecutor(max_workers=num_threads) as pool:
        parts = list(pool.map(lambda chunk: _flat_ids(encode(chunk)), chunks))
    lengths = np.concatenate([np.diff(off) for _, off in parts])
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return np.concatenate([flat for flat, _ in parts]), offsets


class SentencePieceTokenizer(Tokenizer):
    """A trained sentencepiece model (from a ``.model`` file or its serialized bytes).

    The serialized model travels inside :meth:`config` (base64), so a saved pipeline needs no
    side file. Use :meth:`vocab` to get a :class:`~xsent_lib.text.vocab.Vocab` of all pieces.
    Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
    """

    kind = "sentencepiece"

    def __init__(self, model_file: str | Path | None = None,
                 model_proto: bytes | None = None) -> None:
        if (model_file is None) == (model_proto is None):
            raise ValueError("Give exactly one of model_file (a trained .model path) or "
                             "model_proto (its bytes).")
        if model_file is not None:
            path = Path(model_file)
            if not path.is_file():
                raise FileNotFoundError(f"No sentencepiece model at {path}; train one with "
                                        "train_sentencepiece(...).")
            model_proto = path.read_bytes()
        self._proto = bytes(model_proto)
        self._sp = spm.SentencePieceProcessor(model_proto=self._proto)

    def tokenize(self, sentence: str) -> list[str]:
        """Pieces of one sentence. Book: chapter 8 (Paraphrastic embeddings from bitext)."""
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        return self._sp.encode(sentence, out_type=str)

    def tokenize_batch(self, sentences: Sequence[str]) -> list[list[str]]:
        """Pieces of many sentences in one C++ call. Book: chapter 8 (Paraphrastic embeddings from
        bitext)."""
        return self._sp.encode(check_sentences(sentences), out_type=str)

    def encode_ids_flat(self, sentences: Sequence[str],
                        num_threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Sentencepiece's own ids (``0`` is its ``<unk>``) of many sentences in CSR form: flat
        int64 ids, offsets.

        The same ids as ``tokenize_batch`` (piece strings) looked up one by one, at a fraction of
        the cost: batched sentencepiece calls over chunks in ``num_threads`` threads (each
        flattening its own chunk: :func:`_chunked_flat_ids`), each distinct sentence encoded once
        (repeats are copied).
        Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
        """
        sentences = check_sentences(sentences)
        if not isinstance(num_threads, int) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}.")
        distinct = dict.fromkeys(sentences)
        if len(distinct) == len(sentences):
            return _chunked_flat_ids(self._encode_ids, sentences, num_threads)
        for i, s in enumerate(distinct):
            distinct[s] = i
        flat, offsets = _chunked_flat_ids(self._encode_ids, list(distinct), num_threads)
        rows = np.fromiter(map(distinct.__getitem__, sentences), dtype=np.int64,
                           count=len(sentences))
        return gather_csr_rows(flat, offsets, rows)

    def _encode_ids(self, sentences: list[str]) -> list[list[int]]:
        return self._sp.encode(sentences, out_type=int, num_threads=1)

    def pieces(self) -> list[str]:
        """All pieces of the model in id order (piece 0 is sentencepiece's own ``<unk>``).

        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        return [self._sp.id_to_piece(i) for i in range(self._sp.get_piece_size())]

    def vocab(self) -> Vocab:
        """A Vocab with ``<pad>`` at id 0 followed by every piece of the model.

        Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
        """
        pieces = self.pieces()
        return Vocab([PAD_TOKEN, *pieces], unk_token=pieces[self._sp.unk_id()])

    def config(self) -> dict:
        """JSON-ready description (model bytes in base64). Book: chapter 8 (Paraphrastic embeddings
        from bitext)."""
        return {"kind": self.kind, "model_proto_b64": base64.b64encode(self._proto).decode("ascii")}

    @classmethod
    def _from_config(cls, options: dict) -> SentencePieceTokenizer:
        return cls(model_proto=base64.b64decode(options["model_proto_b64"]))


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern[str]:
    """Letters and combining marks: ``\\w`` leaves out marks, which would cut Hindi words at every
    vowel sign."""
    marks, start = [], None
    for code in range(sys.maxunicode + 2):
        is_mark = code <= sys.maxunicode and unicodedata.category(chr(code)).startswith("M")
        if is_mark and start is None:
            start = code
        elif not is_mark and start is not None:
            marks.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = None
    return re.compile(rf"(?:[^\W\d_]|[{''.join(marks)}])+")


def word_tokens(text: str) -> list[str]:
    """Lower-cased runs of letters (with their combining marks): the word tokens of frequency ranks
    and word vectors.

    Digits, punctuation and apostrophes split words (``l'homme`` gives ``l``, ``homme``), which
    matches the single-word dictionary entries the book evaluates on.
    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _word_pattern().findall(text.lower())


def is_word(text: str) -> bool:
    """Whether ``text`` is exactly one word token in the sense of :func:`word_tokens` (any case).

    Book: chapter 5 (Word translation without parallel data: MUSE).
    """
    return _word_pattern().fullmatch(text) is not None


_PTB_RE = re.compile(r"\w+(?=n't\b)|n't\b|'(?:s|re|ve|ll|d|m)\b|\w+(?:-\w+)*|[^\w\s]")


class PTBWordTokenizer(Tokenizer):
    """Lower-cased words, punctuation and English clitics split as GloVe's training text was
    (``do n't``, ``it 's``).

    SentEval feeds Moses-tokenised text to every encoder; our corpora are raw, so the GloVe bag
    tokenises like the Penn Treebank: a plain word regex would keep ``don't`` whole, which GloVe 6B
    does not know.
    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    kind = "ptb-words"

    def tokenize(self, sentence: str) -> list[str]:
        """Split one sentence (typographic apostrophes read as ``'``).

        Book: chapter 2 (Evaluating sentence embeddings: SentEval).
        """
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        return _PTB_RE.findall(sentence.lower().replace("\u2019", "'"))

    def config(self) -> dict:
        """JSON-ready description. Book: chapter 2 (Evaluating sentence embeddings: SentEval)."""
        return {"kind": self.kind}


class LetterTokenizer(Tokenizer):
    """Lower-cased letter runs, exactly the tokens :func:`xsent_lib.data.wordvecs.train_wordvecs`
    learns vectors for.

    Book: chapter 2 (Evaluating sentence embeddings: SentEval).
    """

    kind = "letters"

    def tokenize(self, sentence: str) -> list[str]:
        """Letter runs of one sentence. Book: chapter 2 (Evaluating sentence embeddings:
        SentEval)."""
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        return word_tokens(sentence)

    def config(self) -> dict:
        """JSON-ready description. Book: chapter 2 (Evaluating sentence embeddings: SentEval)."""
        return {"kind": self.kind}


def train_sentencepiece(
    sentences: Iterable[str],
    vocab_size: int,
    model_prefix: str | Path,
    seed: int = 0,
    model_type: str = "unigram",
    character_coverage: float = 1.0,
) -> SentencePieceTokenizer:
    """Train a sentencepiece model offline on ``sentences`` and return it wrapped.

    Writes ``<model_prefix>.model`` and ``.vocab``. Single-threaded with a fixed seed so reruns give
    the same pieces; ``vocab_size`` is a soft limit (``hard_vocab_limit=False``) so tiny corpora do
    not fail. sentencepiece's own ``<s>``/``</s>`` are disabled: the pipeline adds them. Wieting et
    al. use 20k pieces by default; the paper does not name the model type, we use unigram.
    Book: chapter 8 (Paraphrastic embeddings from bitext, Wieting et al.).
    """
    sentences = check_sentences(list(sentences) if not isinstance(sentences, Sequence)
                                else sentences)
    if not sentences:
        raise ValueError("train_sentencepiece needs at least one sentence.")
    if not isinstance(vocab_size, int) or vocab_size < 4:
        raise ValueError(f"vocab_size must be an integer >= 4, got {vocab_size!r}.")
    prefix = Path(model_prefix)
    if not prefix.parent.is_dir():
        raise FileNotFoundError(
            f"Folder {prefix.parent} does not exist; create it before training.")
    spm.set_random_generator_seed(int(seed))
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences),
        model_prefix=str(prefix),
        vocab_size=vocab_size,
        model_type=model_type,
        character_coverage=character_coverage,
        hard_vocab_limit=False,
        num_threads=1,
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        minloglevel=2,
    )
    return SentencePieceTokenizer(model_file=f"{prefix}.model")

