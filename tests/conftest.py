"""Shared test fixtures. Tests run on CPU with few threads so the suite fits 2 cores.

Synthetic worlds: ``world`` (seed 3) and ``world7`` (seed 7); a test module that needs yet another seed defines
its own ``world`` fixture, which takes precedence over the shared one. A module whose tests all want one torch
thread says ``pytestmark = pytest.mark.usefixtures("one_thread")``.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pytest
import torch

from xsent_lib.data.synthetic import SyntheticWorld

if TYPE_CHECKING:  # imported inside the fixtures, so collecting an unrelated test module stays cheap
    from xsent_lib.data.nli_corpus import NLICorpus
    from xsent_lib.data.word_setup import WordSetup
    from xsent_lib.eval.suite import Suite, SuiteSizes
    from xsent_lib.text import TextPipeline

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
# The fake package registry's builders (tests/fixtures/registry/registry_builder.py), for test_fetch and test_corpora.
sys.path.insert(0, str(FIXTURES / "registry"))


def find_shared_dir(root: Path = ROOT) -> Path | None:
    """The project's ``shared/`` folder: ``../shared`` beside this checkout or, for a git worktree, beside the
    main checkout (``.git`` is then a file naming ``<main>/.git/worktrees/<name>``). None if there is none."""
    candidates = [root.parent / "shared"]
    git = root / ".git"
    if git.is_file() and "gitdir:" in (text := git.read_text()):
        gitdir = Path(text.split("gitdir:", 1)[1].strip())
        if len(gitdir.parents) > 3 and gitdir.parent.name == "worktrees":
            candidates.append(gitdir.parents[2].parent / "shared")
    return next((c for c in candidates if c.is_dir()), None)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def formats_dir() -> Path:
    """Tiny files in the layouts of the real corpora (SentEval, SNLI, XNLI, MUSE, ...)."""
    return FIXTURES / "formats"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` beside the checkout (see :func:`find_shared_dir`); skips the test when there is none."""
    found = find_shared_dir()
    if found is None:
        pytest.skip(f"no shared/ folder beside this checkout ({ROOT.parent / 'shared'}) or its main checkout")
    return found


@pytest.fixture(scope="session")
def spec_dir() -> Path:
    """The spec folder: ``$XSENT_SPEC_DIR``, else ``shared/spec`` beside the checkout; skips when absent."""
    if "XSENT_SPEC_DIR" in os.environ:
        found = Path(os.environ["XSENT_SPEC_DIR"])
    else:
        shared = find_shared_dir()
        found = shared / "spec" if shared is not None else ROOT.parent / "shared" / "spec"
    if not found.is_dir():
        pytest.skip(f"spec folder {found} not available (../shared/spec beside the checkout, or set XSENT_SPEC_DIR)")
    return found


@pytest.fixture(scope="session")
def world() -> SyntheticWorld:
    """The synthetic world with seed 3, shared by the modules that use it (it is deterministic per call)."""
    return SyntheticWorld(seed=3)


@pytest.fixture(scope="session")
def world7() -> SyntheticWorld:
    """The synthetic world with seed 7 (NLI training, chapter 3's recipe, the transfer suite)."""
    return SyntheticWorld(seed=7)


@pytest.fixture(scope="module")
def easy_corpus(world7: SyntheticWorld) -> NLICorpus:
    """An NLI corpus a tiny encoder learns in a few epochs, from ``world7``: entailment = the premise itself,
    contradiction = its negation, neutral = an unrelated sentence (100 / 20 / 20 premises, three pairs each)."""
    from xsent_lib.data.formats import NLIData
    from xsent_lib.data.nli_corpus import NLICorpus

    def split(n: int, name: str) -> NLIData:
        pairs = world7.nli(12 * n, name)
        neg = [(p, h) for p, h, s in zip(pairs.premise, pairs.hypothesis, pairs.strategy) if s == "negation"][:n]
        premises = [p for p, _ in neg]
        unrelated = list(pairs.premise[len(neg) : 2 * len(neg)])
        labels = np.repeat([0, 2, 1], len(neg))
        return NLIData(premises * 3, premises + [h for _, h in neg] + unrelated, labels)

    return NLICorpus(split(100, "train"), split(20, "dev"), split(20, "test"), "easy")


@pytest.fixture(scope="module")
def easy_words(easy_corpus: NLICorpus) -> WordSetup:
    """Random trainable 12-d word vectors (seed 0) for ``easy_corpus`` plus one unseen word, "zebra"."""
    from xsent_lib.data.word_setup import build_word_setup

    return build_word_setup(easy_corpus.sentences() + ["an unseen zebra ."], None, dim=12, seed=0)


@pytest.fixture(scope="session")
def suite_sizes() -> SuiteSizes:
    """The sizes of the offline suite in the SentEval tests (see ``offline_split_suite``)."""
    from xsent_lib.eval.suite import SuiteSizes

    return SuiteSizes(single=100, nli=(60, 20, 30), sts=(60, 20, 90))


@pytest.fixture(scope="module")
def offline_split_suite(world: SyntheticWorld, suite_sizes: SuiteSizes) -> Suite:
    """The offline synthetic SentEval suite of ``world`` (seed 3) at ``suite_sizes``, split protocol, seed 5."""
    from xsent_lib.eval.offline_suite import offline_suite

    return offline_suite(world, suite_sizes, real=False, protocol="split", seed=5)


@dataclass
class ToyWords:
    """The three things an encoder needs of a word setup (see encoders.probing.WordInputs)."""

    pipeline: TextPipeline
    weights: np.ndarray
    frozen: bool = False

    @property
    def dim(self) -> int:
        return int(self.weights.shape[1])


def make_toy_words(sentences: list[str], dim: int = 8) -> ToyWords:
    """A vocabulary of ``sentences`` (lower-cased words and the four specials) with N(0, 1) vectors, seed 0."""
    from xsent_lib.text import (
        BOS_TOKEN,
        EOS_TOKEN,
        PAD_TOKEN,
        UNK_TOKEN,
        TextPipeline,
        Vocab,
        WordTokenizer,
    )

    tokenizer = WordTokenizer(lowercase=True)
    vocab = Vocab.build(tokenizer.tokenize_batch(sentences), specials=(PAD_TOKEN, UNK_TOKEN, BOS_TOKEN, EOS_TOKEN))
    weights = np.random.default_rng(0).normal(size=(len(vocab), dim)).astype(np.float32)
    weights[0] = 0.0
    return ToyWords(TextPipeline(tokenizer, vocab, bos=BOS_TOKEN, eos=EOS_TOKEN), weights)


@pytest.fixture(scope="session")
def toy_words() -> Callable[..., ToyWords]:
    """``toy_words(sentences, dim=8)``: a light word setup for the probing encoders (:func:`make_toy_words`)."""
    return make_toy_words


@pytest.fixture
def one_thread() -> Iterator[None]:
    """One torch thread: tiny matrices run 10x slower with thread hand-offs on a loaded 2-core box."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
