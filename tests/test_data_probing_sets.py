"""Probing sets: the synthetic world's ten tasks and the Brown-built four, by their definitions."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.corpora.monolingual import TaggedSentences
from xsent_lib.data.formats.containers import ClassificationTask
from xsent_lib.data.probing_sets import (
    SPLITS,
    brown_probing_sets,
    check_sizes,
    subsample_suite,
    suite_sentences,
    synthetic_probing_sets,
)
from xsent_lib.data.synthetic import SyntheticWorld


@pytest.fixture(scope="module")
def world() -> SyntheticWorld:
    return SyntheticWorld(3)


@pytest.fixture(scope="module")
def suite(world: SyntheticWorld) -> dict[str, ClassificationTask]:
    return synthetic_probing_sets(world, (60, 20, 30), {"Tense": (40, 10, 20)}, tasks=("SentLen", "BShift", "Tense"))


def test_synthetic_sets_have_the_asked_sizes_balanced_labels_and_disjoint_splits(suite):
    assert list(suite) == ["SentLen", "BShift", "Tense"]
    for name, task in suite.items():
        sizes = (40, 10, 20) if name == "Tense" else (60, 20, 30)
        n_classes = len(task.label_names)
        for split, n in zip(SPLITS, sizes):
            labels = task.splits[split].labels
            assert len(task.splits[split].sentences) == len(labels) == n
            counts = np.bincount(labels, minlength=n_classes)
            assert counts.max() - counts.min() <= 1  # balanced up to the remainder
        seen = [set(task.splits[s].sentences) for s in SPLITS]
        assert not (seen[0] & seen[1]) and not (seen[0] & seen[2]) and not (seen[1] & seen[2])
    # SentLen labels are the 4-word bins of the word count (punctuation excluded)
    sl = suite["SentLen"].splits["train"]
    counts = np.array([sum(any(c.isalnum() for c in tok) for tok in s.split()) for s in sl.sentences])
    assert np.array_equal((counts - 5) // 4, sl.labels)


def test_synthetic_wc_keeps_the_first_classes(world):
    wc = synthetic_probing_sets(world, (60, 20, 30), tasks=("WC",), wc_classes=6)["WC"]
    assert len(wc.label_names) == 6
    for split, n in zip(SPLITS, (60, 20, 30)):
        labels = wc.splits[split].labels
        assert len(labels) == n and labels.max() < 6


def test_synthetic_sets_reject_unknown_tasks_and_bad_sizes(world):
    with pytest.raises(ValueError, match="unknown probing tasks"):
        synthetic_probing_sets(world, (10, 5, 5), tasks=("SentLength",))
    with pytest.raises(ValueError, match="three positive integers"):
        synthetic_probing_sets(world, (10, 0, 5), tasks=("SentLen",))
    with pytest.raises(ValueError, match="wc_classes"):
        synthetic_probing_sets(world, (10, 5, 5), tasks=("WC",), wc_classes=1)
    assert check_sizes((3, np.int64(2), 1)) == (3, 2, 1)


def _fake_brown(n: int = 1200, seed: int = 0) -> TaggedSentences:
    """Tagged sentences with a known tense, length and vocabulary: 'the NOUN VERB the NOUN ... .'"""
    rng = np.random.default_rng(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    nouns = ["n" + letters[i // 26] + letters[i % 26] for i in range(400)]
    past = [(f"v{i}ed", "vbd") for i in range(200)]
    present = [(f"v{i}s", "vbz") for i in range(200)]
    words, tags, docs = [], [], []
    for k in range(n):
        length = int(rng.integers(5, 29))
        verb = (past if k % 2 else present)[int(rng.integers(200))]
        w = ["the", nouns[int(rng.integers(400))], verb[0]]
        t = ["at", "nn", verb[1]]
        while len(w) < length:
            w.append(nouns[int(rng.integers(400))])
            t.append("nn")
        if k % 7 == 0:  # a mixed-tense sentence: never a Tense example
            w[-1], t[-1] = present[0][0] if k % 2 else past[0][0], present[0][1] if k % 2 else past[0][1]
        words.append(w + ["."])
        tags.append(t + ["."])
        docs.append("ca01")
    return TaggedSentences(words, tags, docs)


def test_brown_sets_follow_their_definitions():
    tagged = _fake_brown(2000)
    sets = brown_probing_sets(tagged, (100, 15, 15), seed=1, wc_classes=5, wc_first_rank=4)
    past_forms = {f"v{i}ed" for i in range(200)}
    for name, task in sets.items():
        for split in SPLITS:
            counts = np.bincount(task.splits[split].labels, minlength=len(task.label_names))
            assert counts.max() - counts.min() <= 1, (name, split, counts)
    sl = sets["SentLen"].splits["test"]
    n_words = np.array([sum(any(c.isalnum() for c in t) for t in s.split()) for s in sl.sentences])
    assert np.array_equal((n_words - 5) // 4, sl.labels)
    wc = sets["WC"]
    for s, y in zip(wc.splits["train"].sentences, wc.splits["train"].labels):
        present = [w for w in s.split() if w in wc.label_names]
        assert present == [wc.label_names[y]]  # exactly one target word, and it is the class
    originals = {" ".join(w) for w in tagged.words}
    for s, y in zip(sets["BShift"].splits["train"].sentences, sets["BShift"].splits["train"].labels):
        assert (s in originals) == (y == 0)
    tense = sets["Tense"]
    verbs = []
    for split in SPLITS:
        forms = set()
        for s, y in zip(tense.splits[split].sentences, tense.splits[split].labels):
            verb = s.split()[2]
            assert (verb in past_forms) == (tense.label_names[y] == "past")
            forms.add(verb)
        verbs.append(forms)
    assert not (verbs[0] & verbs[1]) and not (verbs[0] & verbs[2]) and not (verbs[1] & verbs[2])


def test_brown_sets_are_reproducible_and_say_when_a_class_is_short():
    a = brown_probing_sets(_fake_brown(600), (60, 10, 10), seed=2, tasks=("SentLen", "BShift"))
    b = brown_probing_sets(_fake_brown(600), (60, 10, 10), seed=2, tasks=("SentLen", "BShift"))
    assert a["BShift"].splits["dev"].sentences == b["BShift"].splits["dev"].sentences
    with pytest.raises(ValueError, match="ask for fewer"):
        brown_probing_sets(_fake_brown(200), (600, 30, 30), tasks=("SentLen",))
    with pytest.raises(ValueError, match="Brown tasks"):
        brown_probing_sets(_fake_brown(200), (6, 3, 3), tasks=("TreeDepth",))


def test_subsample_keeps_the_first_rows_and_sentences_cover_every_split(suite):
    small = subsample_suite(suite, (6, 4, 5))
    assert small["BShift"].splits["train"].sentences == suite["BShift"].splits["train"].sentences[:6]
    assert np.array_equal(small["BShift"].splits["test"].labels, suite["BShift"].splits["test"].labels[:5])
    assert len(suite_sentences(small)) == 3 * (6 + 4 + 5)
