"""The InferSent release's tokenisation, without NLTK: ``word_tokenize`` rules, boundary tokens,
dropped OOV words.

The released ``models.py`` tokenises with NLTK's ``word_tokenize`` (Punkt sentence splitting, then
NLTK's improved Treebank word rules), keeps the case, wraps every sentence in ``<s>``/``</s>``
(version 1) or ``<p>``/``</p>`` (version 2), and drops every word without a vector (a sentence left
empty becomes the end token alone). Version 2 joins the tokens with spaces and replaces ``" n't "``
by ``"n 't "`` (its "~Moses" hack: ``ca n't go`` becomes ``can 't go``; at the very end of a
sentence the hack finds no trailing space and leaves ``ca n't`` as it is).

NLTK is not a dependency of the book, so :func:`treebank_words` re-states the word rules of NLTK's
``NLTKWordTokenizer`` (the version current in 2025-26) as regular expressions, and
:func:`split_sentences` approximates Punkt's English model: a sentence ends after ``?`` or ``!``,
and after a period that does not end an abbreviation of Punkt's common list, an initial (``J.``), or
an ellipsis, when whitespace follows. Only where Punkt splits matters for the words: the period of a
sentence's last word becomes its own token.
Book: chapter 3 (InferSent: using the released model).
"""
from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import Tokenizer, check_sentences
from xsent_lib.text.vocab import PAD_TOKEN, UNK_TOKEN, Vocab

# Sentence boundary tokens of each release version.
RELEASE_BOUNDARIES: dict[int, tuple[str, str]] = {1: ("<s>", "</s>"), 2: ("<p>", "</p>")}

_Q = "\"'»”’"  # closing quotes a final period may be followed by
_STARTING_QUOTES = [
    (re.compile(r"([«“‘„]|[`]+)"), r" \1 "),
    (re.compile(r'^"'), r"``"),
    (re.compile(r"(``)"), r" \1 "),
    (re.compile(r"([ (\[{<])(\"|'{2})"), r"\1 `` "),
    (re.compile(r"(?i)(?<!\w)(')(?!(?:re|ve|ll|m|t|s|d|n)\b)(?=\w)"), r"\1 "),
]
_PUNCTUATION = [
    (re.compile(r"([^.])(\.)([\])}>" + _Q + r" ]*)\s*$"), r"\1 \2 \3 "),
    (re.compile(r"([:,])([^\d])"), r" \1 \2"),
    (re.compile(r"([:,])$"), r" \1 "),
    (re.compile(r"\.{2,}"), r" \g<0> "),
    (re.compile(r"[;@#$%&]"), r" \g<0> "),
    (re.compile("[\u2012-\u2015]"), r" \g<0> "),
    (re.compile(r"([^.])(\.)([\])}>\"']*)\s*$"), r"\1 \2\3 "),
    (re.compile(r"[?!]"), r" \g<0> "),
    (re.compile(r"([^'])' "), r"\1 ' "),
    (re.compile(r"[*]"), r" \g<0> "),
]
_BRACKETS = (re.compile(r"[\][(){}<>]"), r" \g<0> ")
_DOUBLE_DASH = (re.compile(r"--"), r" -- ")
_ENDING_QUOTES = [
    (re.compile(r"([»”’])"), r" \1 "),
    (re.compile(r"''"), " '' "),
    (re.compile(r'"'), " '' "),
    (re.compile(r"\s+"), " "),
    (re.compile(r"([^' ])('[sS]|'[mM]|'[dD]|') "), r"\1 \2 "),
    (re.compile(r"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) "), r"\1 \2 "),
]
_CONTRACTIONS = [re.compile(p) for p in (
    r"(?i)\b(can)(not)\b", r"(?i)\b(d)('ye)\b", r"(?i)\b(gim)(me)\b", r"(?i)\b(gon)(na)\b",
    r"(?i)\b(got)(ta)\b", r"(?i)\b(lem)(me)\b", r"(?i)\b(more)('n)\b", r"(?i)\b(wan)(na)(?=\s)",
    r"(?i) ('t)(is)\b", r"(?i) ('t)(was)\b")]

# Common English abbreviations that Punkt's English model does not end a sentence after (lower case,
# no final dot).
PUNKT_ABBREVIATIONS = frozenset("""
mr mrs ms dr prof st jr sr messrs mme mlle gen col lt sgt capt cmdr adm gov sen rep rev hon pres
inc co corp ltd llc bros dept univ assn
jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat sun
vs etc e.g i.e cf al approx no nos vol fig figs p pp ed eds est ca u.s u.s.a u.k u.n a.m p.m
ave blvd rd ft mt
""".split())
_SENT_END = re.compile(r"""[.?!]+[\])}"'»”’]*(?=\s)""")


def treebank_words(sentence: str) -> list[str]:
    """NLTK's word rules for one sentence (``NLTKWordTokenizer.tokenize``): quotes, punctuation,
    clitics.

    ``don't`` gives ``do n't``, ``"a"`` gives ``` `` a '' ```, only the sentence's final period is
    split off.
    Book: chapter 3 (InferSent: using the released model).
    """
    if not isinstance(sentence, str):
        raise TypeError(f"treebank_words() takes a str, got {type(sentence).__name__}.")
    text = sentence
    for rx, sub in _STARTING_QUOTES:
        text = rx.sub(sub, text)
    for rx, sub in _PUNCTUATION:
        text = rx.sub(sub, text)
    for rx, sub in (_BRACKETS, _DOUBLE_DASH):
        text = rx.sub(sub, text)
    text = " " + text + " "
    for rx, sub in _ENDING_QUOTES:
        text = rx.sub(sub, text)
    for rx in _CONTRACTIONS:
        text = rx.sub(r" \1 \2 ", text)
    return text.split()


def split_sentences(text: str) -> list[str]:
    """Punkt-like English sentence splitting (see the module docstring for what it keeps of Punkt).

    Book: chapter 3 (InferSent: using the released model).
    """
    if not isinstance(text, str):
        raise TypeError(f"split_sentences() takes a str, got {type(text).__name__}.")
    out, start = [], 0
    for m in _SENT_END.finditer(text):
        mark = m.group()
        if (mark[0] == "." and not mark.startswith(("?", "!"))
                and "?" not in mark and "!" not in mark):
            if mark.startswith(".."):  # an ellipsis does not end a sentence by itself
                continue
            word = text[start:m.start()].split()[-1:] or [""]
            stem = word[0].lstrip("\"'([{`«“‘„").lower()
            if (stem in PUNKT_ABBREVIATIONS or re.fullmatch(r"[^\W\d_]", stem)
                    or re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]", stem)):
                continue  # abbreviation, initial ("J."), or dotted acronym ("U.S.")
        out.append(text[start:m.end()].strip())
        start = m.end()
    rest = text[start:].strip()
    if rest:
        out.append(rest)
    return [s for s in out if s]


def nltk_word_tokenize(text: str) -> list[str]:
    """What NLTK's ``word_tokenize(text)`` returns: Punkt-like sentences, then
    :func:`treebank_words` on each.

    Book: chapter 3 (InferSent: using the released model).
    """
    return [w for sent in split_sentences(text) for w in treebank_words(sent)]


def release_tokenize(text: str, version: int) -> list[str]:
    """The release's ``InferSent.tokenize``: v1 ``word_tokenize``; v2 the same plus its ``n't`` ->
    ``n 't`` hack.

    Book: chapter 3 (InferSent: using the released model).
    """
    if version not in RELEASE_BOUNDARIES:
        raise ValueError("version must be 1 (GloVe, <s>/</s>) or 2 (fastText, <p>/</p>), got "
                         f"{version!r}.")
    words = nltk_word_tokenize(text)
    if version == 1:
        return words
    return " ".join(words).replace(" n't ", "n 't ").split()


class InferSentTokenizer(Tokenizer):
    """The release's tokeniser as a :class:`Tokenizer` (cased): ``release_tokenize(s, version)``.

    ``tokenize=False`` splits on whitespace only, as the release's ``encode(..., tokenize=False)``.
    Book: chapter 3 (InferSent: using the released model).
    """

    kind = "infersent-release"

    def __init__(self, version: int = 1, tokenize: bool = True) -> None:
        if version not in RELEASE_BOUNDARIES:
            raise ValueError(f"version must be 1 or 2, got {version!r}.")
        self.version, self.split = int(version), bool(tokenize)

    def tokenize(self, sentence: str) -> list[str]:
        """Tokens of one sentence, the release's way. Book: chapter 3 (InferSent: using the released
        model)."""
        if not isinstance(sentence, str):
            raise TypeError(f"tokenize() takes a str, got {type(sentence).__name__}.")
        return release_tokenize(sentence, self.version) if self.split else sentence.split()

    def config(self) -> dict:
        """JSON-ready description. Book: chapter 3 (InferSent: using the released model)."""
        return {"kind": self.kind, "version": self.version, "tokenize": self.split}


class DropUnknownPipeline(TextPipeline):
    """A pipeline that drops words outside the vocabulary, as the InferSent release does with words
    lacking a vector.

    ``bos``/``eos`` wrap each sentence first and are dropped too when they have no vector; a
    sentence with no word left becomes ``[eos]`` (the release's fallback, with a warning there). The
    vocabulary holds ``<pad>``, ``<unk>`` and the words with vectors; ``<unk>`` is never produced.
    Book: chapter 3 (InferSent: using the released model).
    """

    def __init__(self, tokenizer: Tokenizer, vocab: Vocab, bos: str | None = None,
                 eos: str | None = None) -> None:
        super().__init__(tokenizer, vocab)
        if eos is None:
            raise ValueError("eos must be given: the release ends every sentence with it (</s> or "
                             "</p>).")
        self.release_bos, self.release_eos = bos, eos
        self.n_words = self.n_kept = 0

    def encode_flat(self, sentences: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Ids of the kept words (``bos`` + words + ``eos``), CSR form. Counts kept/total words in
        ``n_kept``/``n_words``.

        Book: chapter 3 (InferSent: using the released model).
        """
        stoi = self.vocab.stoi
        specials = {PAD_TOKEN, UNK_TOKEN} - {self.release_bos, self.release_eos}
        ids, lengths = [], []
        n_words = n_kept = 0
        for toks in self.tokenize(check_sentences(sentences)):
            seq = [self.release_bos, *toks,
                   self.release_eos] if self.release_bos is not None else [*toks, self.release_eos]
            kept = [stoi[t] for t in seq if t in stoi and t not in specials]
            n_words, n_kept = n_words + len(seq), n_kept + len(kept)
            if not kept:
                if self.release_eos not in stoi:
                    raise ValueError(f"no word of {toks!r} has a vector, and the end token "
                                     f"{self.release_eos!r} that the release puts in its place has "
                                     "none either; add it to the word vectors.")
                kept = [stoi[self.release_eos]]
            ids.extend(kept)
            lengths.append(len(kept))
        self.n_words, self.n_kept = n_words, n_kept
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return np.asarray(ids, dtype=np.int64), offsets

    def to_dict(self) -> dict:
        """Not supported: the pipeline is rebuilt from the word vectors by ``load_infersent``.

        Book: chapter 3 (InferSent: using the released model).
        """
        raise NotImplementedError("a release pipeline is rebuilt from its word vectors with "
                                  "load_infersent(); it is not saved on its own.")
