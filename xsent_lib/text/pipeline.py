"""TextPipeline: a tokeniser plus a vocabulary, turning sentences into id arrays.

Book: chapter 1 (Data: tokenisation and vocabularies).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

from xsent_lib.text.chunk_cache import chunk_cached_ids
from xsent_lib.text.tokenizers import SentencePieceTokenizer, Tokenizer, check_sentences
from xsent_lib.text.vocab import PAD_TOKEN, UNK_TOKEN, Vocab


class TextPipeline:
    """Sentences -> token lists -> id arrays, with optional ``<s>``/``</s>`` and truncation.

    ``bos``/``eos`` (e.g. InferSent's ``<s>``/``</s>``) must be tokens of the vocabulary;
    ``max_len`` truncates the tokens before they are added. A sentence with no tokens at all
    (an empty string) is read as one unknown token, so every encoder sees length >= 1 and every
    sentence gets a vector: our choice, the papers never meet empty sentences.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        vocab: Vocab,
        bos: str | None = None,
        eos: str | None = None,
        max_len: int | None = None,
    ) -> None:
        if not isinstance(tokenizer, Tokenizer):
            raise TypeError("tokenizer must be a Tokenizer (WordTokenizer, ...), got "
                            f"{type(tokenizer).__name__}.")
        if not isinstance(vocab, Vocab):
            raise TypeError(f"vocab must be a Vocab, got {type(vocab).__name__}.")
        for name, tok in (("bos", bos), ("eos", eos)):
            if tok is not None and tok not in vocab:
                raise ValueError(f"{name}={tok!r} is not in the vocabulary; build it with specials "
                                 f"including {tok!r}.")
        if max_len is not None and (not isinstance(max_len, int) or max_len < 1):
            raise ValueError(f"max_len must be None or a positive integer, got {max_len!r}.")
        self.tokenizer = tokenizer
        self.vocab = vocab
        self.bos, self.eos, self.max_len = bos, eos, max_len
        self._prefix = [vocab.stoi[bos]] if bos is not None else []
        self._suffix = [vocab.stoi[eos]] if eos is not None else []
        # Sentencepiece with its own vocabulary (``<pad>`` + every piece in id order): ids come
        # straight from the model (id + 1), without piece strings (see encode_flat).
        self._sp_ids = (isinstance(tokenizer, SentencePieceTokenizer)
                        and list(vocab.itos) == [PAD_TOKEN, *tokenizer.pieces()])

    @classmethod
    def fit(
        cls,
        sentences: Sequence[str],
        tokenizer: Tokenizer,
        min_count: int = 1,
        max_size: int | None = None,
        bos: str | None = None,
        eos: str | None = None,
        max_len: int | None = None,
    ) -> TextPipeline:
        """Tokenise ``sentences``, build the vocabulary (specials: pad, unk, bos, eos) and return
        the pipeline.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        specials = [PAD_TOKEN, UNK_TOKEN] + [t for t in (bos, eos) if t is not None]
        vocab = Vocab.build(tokenizer.tokenize_batch(sentences), min_count, max_size,
                            specials=specials)
        return cls(tokenizer, vocab, bos=bos, eos=eos, max_len=max_len)

    def __len__(self) -> int:
        return len(self.vocab)

    def tokenize(self, sentences: Sequence[str]) -> list[list[str]]:
        """Token lists of ``sentences`` after truncation, without ``bos``/``eos``.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        toks = self.tokenizer.tokenize_batch(check_sentences(sentences))
        if self.max_len is not None:
            toks = [t[: self.max_len] for t in toks]
        return toks

    def encode(self, sentences: Sequence[str]) -> list[np.ndarray]:
        """One int64 id array per sentence (``bos`` + ids + ``eos``), in input order.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        flat, offsets = self.encode_flat(sentences)
        return np.split(flat, offsets[1:-1])

    def encode_flat(self, sentences: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """All ids in CSR form: flat int64 ids and ``len(sentences) + 1`` offsets.

        A tokeniser with ``cache_chunks`` (trigrams) tokenises each distinct whitespace-delimited
        chunk once (:func:`~xsent_lib.text.chunk_cache.chunk_cached_ids`); the ids are those of
        tokenising every sentence on its own.
        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        sentences = check_sentences(sentences)
        if self.tokenizer.cache_chunks:
            # a lower-casing tokeniser: the whole text is lower-cased once ("The" and "the" merge)
            flat, offsets = chunk_cached_ids(sentences, self._ids_of,
                                             lower=getattr(self.tokenizer, "lowercase", False))
        else:
            flat, offsets = self._ids_of(sentences)
        flat, offsets = self._truncate(flat, offsets)
        if not (self._prefix or self._suffix):
            return flat, offsets
        lengths = np.diff(offsets) + len(self._prefix) + len(self._suffix)
        new_offsets = np.zeros_like(offsets)
        np.cumsum(lengths, out=new_offsets[1:])
        out = np.empty(int(new_offsets[-1]), dtype=np.int64)
        body = np.ones(len(out), dtype=bool)
        if self._prefix:
            out[new_offsets[:-1]] = self._prefix[0]
            body[new_offsets[:-1]] = False
        if self._suffix:
            out[new_offsets[1:] - 1] = self._suffix[0]
            body[new_offsets[1:] - 1] = False
        out[body] = flat
        return out, new_offsets

    def _ids_of(self, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """CSR ids of ``texts`` before truncation: sentencepiece's own ids shifted past ``<pad>``
        (one batched call in ``torch.get_num_threads()`` threads), else token strings looked up."""
        if not texts:
            return np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
        if self._sp_ids:
            flat, offsets = self.tokenizer.encode_ids_flat(texts,
                                                           num_threads=torch.get_num_threads())
            return flat + 1, offsets
        return self.vocab.lookup_flat(self.tokenizer.tokenize_batch(texts))

    def _truncate(self, flat: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Keep the first ``max_len`` ids of each sentence and give an empty one ``<unk>``,
        vectorised."""
        lengths = np.diff(offsets)
        keep = lengths if self.max_len is None else np.minimum(lengths, self.max_len)
        if (keep == lengths).all() and lengths.all():
            return flat, offsets
        pos = np.arange(len(flat)) - np.repeat(offsets[:-1], lengths)
        kept = flat[pos < np.repeat(keep, lengths)]
        empty = keep == 0
        new_len = np.where(empty, 1, keep)
        new_off = np.zeros_like(offsets)
        np.cumsum(new_len, out=new_off[1:])
        out = np.full(int(new_off[-1]), self.vocab.unk_id, dtype=np.int64)
        out[np.repeat(~empty, new_len)] = kept
        return out, new_off

    def to_dict(self) -> dict:
        """A JSON-ready description: tokeniser config, vocabulary, bos/eos, max_len.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        return {
            "tokenizer": self.tokenizer.config(),
            "vocab": self.vocab.to_dict(),
            "bos": self.bos,
            "eos": self.eos,
            "max_len": self.max_len,
        }

    @classmethod
    def from_dict(cls, data: dict) -> TextPipeline:
        """Rebuild a pipeline from :meth:`to_dict` output.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        missing = {"tokenizer", "vocab", "bos", "eos", "max_len"} - set(data)
        if missing:
            raise ValueError(f"Pipeline description lacks keys {sorted(missing)}; was it written "
                             "by TextPipeline.save?")
        return cls(
            Tokenizer.from_config(data["tokenizer"]),
            Vocab.from_dict(data["vocab"]),
            bos=data["bos"],
            eos=data["eos"],
            max_len=data["max_len"],
        )

    def save(self, path: str | Path) -> None:
        """Write the whole pipeline (tokeniser included) as one UTF-8 JSON file.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> TextPipeline:
        """Read a pipeline written by :meth:`save`.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"No pipeline file at {path}; write one with "
                                    "TextPipeline.save(path).")
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
