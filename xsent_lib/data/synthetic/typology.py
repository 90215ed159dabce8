"""The typology of each language of the synthetic world: word order, morphology, function-word
placement.

``en`` is English with its real words. The invented languages ``xa``..``xe`` relabel the same
concepts with seeded pseudo-words (see :mod:`.languages`) and differ from English and from each
other in the ways the cross-lingual papers care about: basic word order (SVO, SOV, VSO),
noun-adjective order, pre- vs post-nominal relative clauses, prepositions vs postpositions, articles
or none, case suffixes, subject agreement on the verb, adjective agreement, and how negation and the
future are expressed. The suffix strings are fixed here; the stems are drawn from each language's
syllable inventory.

Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Typology:
    """How one language of the world builds a sentence from a logical form.

    ``order``: basic clause order. ``adjective``: adjective ``before`` / ``after`` its noun.
    ``relative``: relative clause ``before`` (marker after the clause, as in Chinese or Japanese) /
    ``after`` the noun (marker first). ``adposition``: ``pre`` / ``post``. ``articles``: definite,
    indefinite and negative-polarity ("any") determiners exist. ``negation``: ``do-support``
    (English), a ``particle-before`` / ``particle-after`` the finite verb, or a verb ``suffix``.
    ``future``: an ``aux`` word before the verb or a tense ``suffix``. ``plural``, ``cases``
    (nominative, accusative, oblique; empty strings when unmarked), ``tense_suffixes`` (past,
    present, future), ``agreement`` (verb suffix for singular / plural subject),
    ``adjective_agreement`` (singular / plural) and ``negative_suffix`` are the morphemes;
    ``onsets`` / ``vowels`` / ``codas`` and ``coda_rate`` the phonotactics of the stems;
    ``stem_syllables`` their length range.
    Book: chapter 1 (Data: the synthetic world).
    """

    code: str
    name: str
    order: Literal["SVO", "SOV", "VSO"]
    adjective: Literal["before", "after"]
    relative: Literal["before", "after"]
    adposition: Literal["pre", "post"]
    articles: bool
    negation: Literal["do-support", "particle-before", "particle-after", "suffix"]
    future: Literal["aux", "suffix"]
    plural: str = ""
    cases: tuple[str, str, str] = ("", "", "")
    tense_suffixes: tuple[str, str, str] = ("", "", "")
    agreement: tuple[str, str] = ("", "")
    adjective_agreement: tuple[str, str] = ("", "")
    negative_suffix: str = ""
    onsets: tuple[str, ...] = ()
    vowels: tuple[str, ...] = ()
    codas: tuple[str, ...] = ()
    coda_rate: float = 0.0
    stem_syllables: tuple[int, int] = (2, 3)

    @property
    def real(self) -> bool:
        """True for English, whose words come from the real lexicon.

        Book: chapter 1 (Data: the synthetic world).
        """
        return self.code == "en"

    def describe(self) -> str:
        """One line for tables of the book. Book: chapter 1 (Data: the synthetic world)."""
        morph = [m for m, on in (("case", any(self.cases)), ("verb agreement", any(self.agreement)),
                                 ("adjective agreement", any(self.adjective_agreement)),
                                 ("articles", self.articles)) if on]
        return (f"{self.code} ({self.name}): {self.order}, adjective {self.adjective} noun, "
                f"relative clause {self.relative} noun, {self.adposition}positions, negation "
                f"{self.negation}, future {self.future}"
                + (f"; {', '.join(morph)}" if morph else ""))


LANGUAGES: dict[str, Typology] = {t.code: t for t in (
    Typology("en", "English", "SVO", "before", "after", "pre", True, "do-support", "aux"),
    Typology("xa", "Romance-like", "SVO", "after", "after", "pre", True, "particle-before",
             "suffix",
             plural="s", tense_suffixes=("ava", "a", "era"), agreement=("", "n"),
             adjective_agreement=("", "s"),
             onsets=("p", "b", "t", "d", "l", "m", "n", "r", "s", "v", "c", "g", "f"),
             vowels=("a", "e", "i", "o", "u"), codas=("n", "r", "l", "s"), coda_rate=0.15),
    Typology("xb", "Japonic-like", "SOV", "before", "before", "post", False, "suffix", "suffix",
             plural="ra", cases=("ga", "wo", "ni"), tense_suffixes=("ta", "ru", "ro"),
             negative_suffix="nai",
             onsets=("k", "s", "t", "n", "h", "m", "y", "r", "w", "g", "z", "sh", "ch"),
             vowels=("a", "i", "u", "e", "o"), codas=("n",), coda_rate=0.1),
    Typology("xc", "Celtic-like", "VSO", "after", "after", "pre", True, "particle-before", "suffix",
             plural="ach", tense_suffixes=("odh", "ann", "fidh"), agreement=("", "id"),
             onsets=("b", "c", "d", "g", "l", "m", "n", "r", "s", "t", "bh", "dh", "gh", "mh",
                     "ch"),
             vowels=("a", "e", "i", "o", "u", "ai", "ea", "ao"),
             codas=("r", "n", "l", "ch", "gh", "dh"),
             coda_rate=0.45),
    Typology("xd", "Turkic-like", "SOV", "before", "before", "post", False, "suffix", "suffix",
             plural="ler", cases=("", "i", "de"), tense_suffixes=("di", "ir", "ecek"),
             agreement=("", "ler"),
             negative_suffix="me",
             onsets=("b", "d", "g", "k", "l", "m", "n", "s", "t", "y", "z", "ch", "sh"),
             vowels=("a", "e", "i", "o", "u", "oe", "ue"),
             codas=("k", "l", "m", "n", "r", "t", "z"),
             coda_rate=0.45),
    Typology("xe", "Germanic-like", "SVO", "before", "after", "pre", True, "particle-after", "aux",
             plural="en", tense_suffixes=("te", "t", ""), agreement=("", "n"),
             adjective_agreement=("e", "en"),
             onsets=("b", "d", "f", "g", "h", "k", "l", "m", "n", "r", "s", "t", "w", "st", "kr",
                     "fl", "sch"),
             vowels=("a", "e", "i", "o", "u", "ei", "au", "ie"),
             codas=("n", "r", "l", "t", "ch", "ck", "nd"),
             coda_rate=0.55, stem_syllables=(1, 2)),
)}


def typology(code: str) -> Typology:
    """Look a language up by code, with a clear error listing the known codes.

    Book: chapter 1 (Data: the synthetic world).
    """
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; the synthetic world knows "
                         f"{sorted(LANGUAGES)}.")
    return LANGUAGES[code]
