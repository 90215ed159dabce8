"""The synthetic multilingual world: seeded logical forms rendered in English and invented
languages.

``SyntheticWorld(seed)`` yields, from the same forms and with exact labels: parallel corpora for any
pair of languages, XNLI-like NLI sets, the ten probing tasks, graded similarity pairs, coherent
documents and gold bilingual lexicons. See :mod:`.world` for the entry point and :mod:`.typology`
for the languages.
Book: chapter 1 (Data: the synthetic world).
"""
from __future__ import annotations

from .datasets import (
                       NLI_LABELS,
                       BilingualLexicon,
                       DocumentSet,
                       NLISet,
                       ParallelCorpus,
                       ProbingSet,
                       ProbingSplit,
                       STSSet,
)
from .forms import Clauses, FormConfig, Forms
from .probing import TASKS as PROBING_TASKS
from .typology import LANGUAGES, Typology
from .world import SyntheticWorld

__all__ = ["SyntheticWorld", "Typology", "LANGUAGES", "FormConfig", "Forms", "Clauses",
           "ParallelCorpus",
           "NLISet", "NLI_LABELS", "ProbingSet", "ProbingSplit", "STSSet", "DocumentSet",
           "BilingualLexicon",
           "PROBING_TASKS"]
