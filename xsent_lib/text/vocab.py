"""Vocabularies: the map between token strings and the integer ids the encoders embed.

Book: chapter 1 (Data: tokenisation and vocabularies).
"""
from __future__ import annotations

import itertools
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

PAD_TOKEN = "<pad>"
UNK_TOKEN = "<unk>"
BOS_TOKEN = "<s>"
EOS_TOKEN = "</s>"


class Vocab:
    """An ordered token list with the padding token at id 0 and an unknown-token id.

    ``tokens[0]`` is always the padding token, so ``pad_id == 0`` everywhere in the library;
    ``counts[i]`` is the corpus count of ``tokens[i]`` (0 for specials), which SIF weighting reads.
    Book: chapter 1 (Data: tokenisation and vocabularies).
    """

    pad_id: int = 0

    def __init__(
        self,
        tokens: Sequence[str],
        counts: Sequence[int] | np.ndarray | None = None,
        unk_token: str = UNK_TOKEN,
    ) -> None:
        tokens = list(tokens)
        if not tokens or not all(isinstance(t, str) for t in tokens):
            raise TypeError("Vocab needs a non-empty sequence of string tokens (padding token "
                            "first).")
        if len(set(tokens)) != len(tokens):
            dup = [t for t, c in Counter(tokens).items() if c > 1][:5]
            raise ValueError(f"Vocab tokens must be unique; duplicated: {dup}.")
        if unk_token not in tokens:
            raise ValueError(f"unk_token {unk_token!r} is not among the tokens; add it to the "
                             "specials.")
        if tokens[0] == unk_token:
            raise ValueError("tokens[0] is the padding token and must differ from unk_token.")
        self.itos: list[str] = tokens
        self.stoi: dict[str, int] = {t: i for i, t in enumerate(tokens)}
        self.unk_token = unk_token
        self.unk_id: int = self.stoi[unk_token]
        if counts is None:
            counts = np.zeros(len(tokens), dtype=np.int64)
        self.counts = np.asarray(counts, dtype=np.int64)
        if self.counts.shape != (len(tokens),) or (self.counts < 0).any():
            raise ValueError(f"counts must be {len(tokens)} non-negative integers, got shape "
                             f"{self.counts.shape}.")

    @classmethod
    def build(
        cls,
        token_lists: Iterable[Iterable[str]],
        min_count: int = 1,
        max_size: int | None = None,
        specials: Sequence[str] = (PAD_TOKEN, UNK_TOKEN),
        unk_token: str = UNK_TOKEN,
    ) -> Vocab:
        """Count tokens over sentences and keep those seen at least ``min_count`` times.

        Specials come first (``specials[0]`` is padding, id 0), then tokens by decreasing count,
        ties broken alphabetically so the result never depends on corpus order. ``max_size`` caps
        the TOTAL size including specials (Wieting et al.'s "200k trigram types" reads this way).
        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        if isinstance(token_lists, (str, bytes)):
            raise TypeError("token_lists must be an iterable of token lists, e.g. [['a', 'cat'], "
                            "['a', 'dog']].")
        if not isinstance(min_count, (int, np.integer)) or min_count < 1:
            raise ValueError(f"min_count must be an integer >= 1, got {min_count!r}.")
        specials = list(specials)
        if unk_token not in specials:
            raise ValueError(f"unk_token {unk_token!r} must be one of the specials {specials}.")
        if max_size is not None and (not isinstance(max_size, (int, np.integer))
                                     or max_size < len(specials)):
            raise ValueError(f"max_size must be None or an integer >= {len(specials)} (the "
                             f"specials), got {max_size!r}.")
        counter = Counter(itertools.chain.from_iterable(token_lists))
        for s in specials:
            counter.pop(s, None)
        kept = sorted((kv for kv in counter.items() if kv[1] >= min_count),
                      key=lambda kv: (-kv[1], kv[0]))
        if max_size is not None:
            kept = kept[: max_size - len(specials)]
        tokens = specials + [t for t, _ in kept]
        counts = [0] * len(specials) + [c for _, c in kept]
        return cls(tokens, counts, unk_token=unk_token)

    def __len__(self) -> int:
        return len(self.itos)

    def __contains__(self, token: object) -> bool:
        return token in self.stoi

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Vocab)
            and self.itos == other.itos
            and self.unk_token == other.unk_token
            and np.array_equal(self.counts, other.counts)
        )

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)}, unk={self.unk_token!r}, first={self.itos[:6]})"

    def lookup(self, tokens: Sequence[str]) -> np.ndarray:
        """Ids of ``tokens`` as an int64 array; unknown tokens map to ``unk_id``.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        if isinstance(tokens, str):
            raise TypeError("lookup() takes a list of tokens, not a single string; tokenise first.")
        return np.fromiter(map(self.stoi.get, tokens, itertools.repeat(self.unk_id)),
                           dtype=np.int64, count=len(tokens))

    def lookup_flat(self, token_lists: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray]:
        """Ids of many token lists in CSR form: one flat int64 array and ``len+1`` offsets.

        Sentence ``i`` is ``ids[offsets[i]:offsets[i+1]]``; this is what ``nn.EmbeddingBag`` eats.
        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        lengths = np.fromiter((len(t) for t in token_lists), dtype=np.int64, count=len(token_lists))
        offsets = np.zeros(len(token_lists) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # map(dict.get, tokens, repeat(unk)) runs the lookups in C, without a Python frame per
        # token.
        tokens = itertools.chain.from_iterable(token_lists)
        flat = np.fromiter(map(self.stoi.get, tokens, itertools.repeat(self.unk_id)),
                           dtype=np.int64, count=int(offsets[-1]))
        return flat, offsets

    def tokens_of(self, ids: Sequence[int] | np.ndarray) -> list[str]:
        """Token strings of ``ids`` (the inverse of :meth:`lookup` for known tokens).

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        ids = np.asarray(ids, dtype=np.int64).ravel()
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise ValueError(f"ids must lie in [0, {len(self)}); got min {ids.min()} max "
                             f"{ids.max()}.")
        return [self.itos[i] for i in ids.tolist()]

    def probabilities(self) -> np.ndarray:
        """Unigram probabilities p(w) = count / total from the counts (0 for specials).

        Book: chapter 7 (SIF weighting, Aldarmaki & Diab).
        """
        total = int(self.counts.sum())
        if total == 0:
            raise ValueError("This vocabulary has no counts (built without a corpus); SIF needs "
                             "Vocab.build(...).")
        return self.counts / total

    def to_dict(self) -> dict:
        """A JSON-ready description (tokens, counts, unknown token).

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        return {"tokens": self.itos, "counts": self.counts.tolist(), "unk_token": self.unk_token}

    @classmethod
    def from_dict(cls, data: dict) -> Vocab:
        """Rebuild a vocabulary from :meth:`to_dict` output.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        missing = {"tokens", "counts", "unk_token"} - set(data)
        if missing:
            raise ValueError(f"Vocab description lacks keys {sorted(missing)}; was it written by "
                             "Vocab.save?")
        return cls(data["tokens"], data["counts"], unk_token=data["unk_token"])

    def save(self, path: str | Path) -> None:
        """Write the vocabulary as UTF-8 JSON.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Vocab:
        """Read a vocabulary written by :meth:`save`.

        Book: chapter 1 (Data: tokenisation and vocabularies).
        """
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"No vocabulary file at {path}; write one with "
                                    "Vocab.save(path).")
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
