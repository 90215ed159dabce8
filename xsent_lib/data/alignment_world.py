"""Chapter 7's data, all from one synthetic world: English and invented languages with monolingual
text, a multi-parallel bitext whose prefixes give the alignment curve's sizes, a multi-parallel
retrieval test set, and XNLI-shaped NLI pairs in every language (exact translations).
Book: chapter 7 (Joint vs transfer vs mapping).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from xsent_lib.data.formats import NLIData
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.xnli import XNLIBenchmark, synthetic_xnli


@dataclass
class AldarmakiData:
    """Everything the chapter reads, all from one synthetic world: ``mono[lang]`` monolingual
    sentences, ``parallel[lang] = (english, lang)`` (multi-parallel; the curve uses prefixes),
    ``test[lang]`` the multi-parallel retrieval test set, ``nli[lang]`` the NLI training pairs in
    every language (exact translations), the XNLI-shaped ``bench`` whose dev / test pairs train and
    test classification transfer, and ``paper_language[lang]``, the paper's language each invented
    one stands beside.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """

    world: SyntheticWorld
    languages: list[str]
    mono: dict[str, list[str]]
    parallel: dict[str, tuple[list[str], list[str]]]
    test: dict[str, list[str]]
    nli: dict[str, NLIData]
    bench: XNLIBenchmark
    paper_language: dict[str, str]

    def sizes(self) -> list[dict[str, Any]]:
        """One row per language with the size of each part.

        Book: chapter 7 (Joint vs transfer vs mapping).
        """
        return [{"language": lang, "paper's": self.paper_language.get(lang, lang),
                 "monolingual": len(self.mono[lang]),
                 "bitext with en": len(self.parallel[lang][0]) if lang != "en" else 0,
                 "retrieval test": len(self.test[lang]), "NLI train": len(self.nli[lang]),
                 "classification train / test":
                     f"{len(self.bench.dev[lang])} / {len(self.bench.test[lang])}"}
                for lang in self.languages]


def alignment_world(world_seed: int, *, languages: tuple[str, ...], n_nli: int, n_cls: int,
                    n_test: int, n_mono: int, n_parallel: int,
                    paper_language: dict[str, str]) -> AldarmakiData:
    """The chapter's data from the world of ``world_seed``: English and ``languages``, ``n_nli`` NLI
    training pairs, ``n_cls`` classification pairs per split, ``n_test`` retrieval test sentences,
    ``n_mono`` monolingual sentences per language and a multi-parallel bitext of ``n_parallel``
    pairs.
    Book: chapter 7 (Joint vs transfer vs mapping).
    """
    world = SyntheticWorld(world_seed)
    langs = ["en", *languages]
    bench = synthetic_xnli(world, languages, n_nli, n_cls, n_cls, n_parallel, 50)
    nli = {"en": bench.train}
    for lang in languages:
        nli[lang] = NLIData(bench.translate(list(bench.train.premises), "en", lang),
                            bench.translate(list(bench.train.hypotheses), "en", lang),
                            np.asarray(bench.train.labels))
    test = {"en": world.parallel(n_test, "en", languages[0], "test").src}
    for lang in languages:
        test[lang] = world.parallel(n_test, "en", lang, "test").tgt
    mono = {lang: world.sentences(n_mono, lang) for lang in langs}
    return AldarmakiData(world, langs, mono, dict(bench.parallel), test, nli, bench, paper_language)
