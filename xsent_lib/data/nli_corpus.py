"""NLI corpora for training sentence encoders: the synthetic world's English pairs or SNLI 1.0.

Book: chapter 3 (InferSent).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xsent_lib.data.formats import NLIData, load_snli
from xsent_lib.data.synthetic import SyntheticWorld


@dataclass
class NLICorpus:
    """Train / dev / test NLI pairs (labels 0 entailment, 1 neutral, 2 contradiction) and where they
    come from.

    Book: chapter 3 (InferSent).
    """

    train: NLIData
    dev: NLIData
    test: NLIData
    source: str

    def sentences(self) -> list[str]:
        """Every premise and hypothesis of the three splits. Book: chapter 3 (InferSent)."""
        return [s for d in (self.train, self.dev, self.test) for s in (*d.premises, *d.hypotheses)]


def synthetic_nli(world: SyntheticWorld, n_train: int, n_dev: int, n_test: int) -> NLICorpus:
    """English NLI pairs of the synthetic world, labels exact under the logical forms (stands in for
    SNLI).

    Book: chapter 3 (InferSent).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    if min(n_train, n_dev, n_test) < 1:
        raise ValueError(f"every split needs at least one pair, got {n_train}, {n_dev}, {n_test}.")
    sets = {s: world.nli(n, s, "en") for s, n in (("train", n_train), ("dev", n_dev),
                                                  ("test", n_test))}
    data = {s: NLIData(list(d.premise), list(d.hypothesis), np.asarray(d.label, np.int64))
            for s, d in sets.items()}
    return NLICorpus(**data, source=f"synthetic world (seed {world.seed}) English NLI")


def snli_corpus(data_dir: str | Path, max_train: int | None = None,
                max_eval: int | None = None) -> NLICorpus:
    """SNLI 1.0 train / dev / test from ``data_dir/snli_1.0/`` (pairs without a gold label are
    dropped).

    ``max_train`` / ``max_eval`` keep the first pairs of the training / of each evaluation file
    (``None``: all).
    Book: chapter 3 (InferSent).
    """
    return NLICorpus(load_snli(data_dir, "train", max_train), load_snli(data_dir, "dev", max_eval),
                     load_snli(data_dir, "test", max_eval), source=f"SNLI 1.0 from {data_dir}")

