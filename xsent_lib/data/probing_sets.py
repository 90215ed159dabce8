"""Probing sets: the ten tasks of the synthetic world and four built from tagged Brown text.

Every set is ``{task: ClassificationTask}`` with balanced classes and train / dev / test
splits that share no sentence (Conneau et al. 2018). :func:`subsample_suite` takes cheap
copies for periodic probes during training; :func:`suite_sentences` lists what a
vocabulary must cover.
Book: chapter 4 (Probing: the ten tasks).
"""
from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from xsent_lib.data.corpora.monolingual import TaggedSentences
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences
from xsent_lib.data.synthetic import PROBING_TASKS, SyntheticWorld

SPLITS = ("train", "dev", "test")
BROWN_TASKS: tuple[str, ...] = ("SentLen", "WC", "BShift", "Tense")
MIN_WORDS, MAX_WORDS = 5, 28
# Brown tags of finite verbs whose tense the tag alone decides (base forms "vb", "do", "hv"
# may be finite present or infinitive, so they are not used).
BROWN_PAST = frozenset({"vbd", "bed", "bedz", "hvd", "dod"})
BROWN_PRESENT = frozenset({"vbz", "bez", "bem", "ber", "hvz", "doz"})
Suite = dict[str, ClassificationTask]


def check_sizes(sizes: Sequence[int]) -> tuple[int, int, int]:
    """``sizes`` as three positive integers ``(train, dev, test)``, or a clear error.

    Book: chapter 4 (Probing).
    """
    if len(sizes) != 3 or any(not isinstance(n, (int, np.integer)) or n < 1 for n in sizes):
        raise ValueError("sizes must be three positive integers (train, dev, test), "
                         f"got {sizes!r}.")
    return int(sizes[0]), int(sizes[1]), int(sizes[2])


def synthetic_probing_sets(world: SyntheticWorld, sizes: Sequence[int],
                           overrides: Mapping[str, Sequence[int]] | None = None,
                           tasks: Sequence[str] = PROBING_TASKS,
                           wc_classes: int | None = None) -> Suite:
    """The ten probing tasks of the synthetic world (labels exact), by task.

    ``sizes`` is ``(train, dev, test)`` for every task; ``overrides`` gives other sizes
    per task (WC has hundreds of classes and needs more examples per split than the
    binary tasks). Classes are balanced and splits share no sentence (see
    :mod:`xsent_lib.data.synthetic.probing` for each task's definition). ``wc_classes``
    keeps only the first (most frequent) WC target words, so that a small WC set still
    has enough examples per word: the world's WC set is drawn large enough and filtered
    (classes stay balanced up to a few examples). Without it WC has every target word
    of the world (about 340 in English).
    Book: chapter 4 (Probing: the ten tasks).
    """
    if not isinstance(world, SyntheticWorld):
        raise TypeError(f"world must be a SyntheticWorld, got {type(world).__name__}.")
    overrides = overrides or {}
    unknown = [t for t in (*tasks, *overrides) if t not in PROBING_TASKS]
    if unknown:
        raise ValueError(f"unknown probing tasks {unknown}; the ten are "
                         f"{list(PROBING_TASKS)}.")
    if wc_classes is not None and (not isinstance(wc_classes, (int, np.integer))
                                   or wc_classes < 2):
        raise ValueError(f"wc_classes must be None or an integer >= 2, "
                         f"got {wc_classes!r}.")
    out = {}
    for task in tasks:
        asked = check_sizes(overrides.get(task, sizes))
        want, keep = asked, None
        if task == "WC" and wc_classes is not None:
            n_all = len(world.probing("WC", 1, 1, 1).classes)
            if wc_classes < n_all:  # draw enough of every word, keep the first wc_classes
                keep = int(wc_classes)
                want = tuple(int(np.ceil(n * n_all / keep)) + n_all for n in asked)
        ps = world.probing(task, *want)
        splits = {}
        for s, n in zip(SPLITS, asked):
            part = getattr(ps, s)
            labels = np.asarray(part.labels, np.int64)
            rows = np.flatnonzero(labels < keep)[:n] if keep else np.arange(labels.size)
            texts = [part.sentences[i] for i in rows.tolist()]
            splits[s] = LabelledSentences(texts, labels[rows])
        classes = ps.classes[:keep] if keep else ps.classes
        out[task] = ClassificationTask(task, splits, tuple(classes))
    return out


def _stable_split(keys: Sequence[str], salt: str,
                  fractions: tuple[float, float, float] = (0.8, 0.1, 0.1)) -> np.ndarray:
    """Split id (0 train, 1 dev, 2 test) of each key, from crc32 (the same on every machine)."""
    u = np.array([zlib.crc32(f"{salt}:{k}".encode()) for k in keys], np.float64) / 2**32
    return np.searchsorted(np.cumsum(fractions)[:-1], u, side="right")


def _balanced_draw(labels: np.ndarray, split_of: np.ndarray, sizes: tuple[int, int, int],
                   n_classes: int, rng: np.random.Generator, task: str) -> dict[str, np.ndarray]:
    """Indices of balanced train / dev / test sets: rows with ``split_of == s``, ``labels >= 0``."""
    order = rng.permutation(labels.size)
    out = {}
    for s, (name, n) in enumerate(zip(SPLITS, sizes)):
        rows = order[(split_of[order] == s) & (labels[order] >= 0)]
        need = n // n_classes + (np.arange(n_classes) < n % n_classes)
        by_class = rows[np.argsort(labels[rows], kind="stable")]
        counts = np.bincount(labels[rows], minlength=n_classes)
        if (counts < need).any():
            c = int(np.argmax(need - counts))
            raise ValueError(f"Brown {task}: the {name} split has {counts[c]} sentences of class "
                             f"{c}, {need[c]} are needed; ask for fewer examples.")
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        take = np.concatenate([by_class[starts[c]: starts[c] + need[c]] for c in range(n_classes)])
        out[name] = take[rng.permutation(take.size)]
    return out


def _tense_of(words: list[str], tags: list[str]) -> tuple[int, str]:
    """(label, verb) of a sentence whose finite verbs agree in tense, else (-1, "")."""
    tensed = [(w.lower(), t in BROWN_PAST) for w, t in zip(words, tags)
              if t in BROWN_PAST or t in BROWN_PRESENT]
    if tensed and len({past for _, past in tensed}) == 1:
        return int(not tensed[0][1]), tensed[0][0]
    return -1, ""


def brown_probing_sets(tagged: TaggedSentences, sizes: Sequence[int], seed: int = 0,
                       wc_classes: int = 50, wc_first_rank: int = 300,
                       tasks: Sequence[str] = BROWN_TASKS) -> Suite:
    """SentLen, WC, BShift and Tense built from real tagged sentences, the thesis's way.

    Sentences of 5-28 words (tokens with a letter or digit) are kept, once each.
    **SentLen**: 6 equal bins of the word count. **WC**: ``wc_classes`` mid-frequency
    words (lower-cased frequency ranks ``wc_first_rank`` onward; the thesis takes ranks
    2k-3k of a far larger corpus), sentences holding exactly one of them. **BShift**:
    half the sentences get two adjacent words (letters or digits, not equal) inverted.
    **Tense**: past vs present where every finite verb whose tag fixes the tense agrees
    (no parse is at hand to find the main clause, so sentences mixing tenses are left
    out); the tense-carrying verb forms of the three splits are disjoint, as in the
    thesis. Classes are balanced; splits share no sentence.
    Book: chapter 4 (Probing: real tagged sentences).
    """
    sizes = check_sizes(sizes)
    unknown = [t for t in tasks if t not in BROWN_TASKS]
    if unknown:
        raise ValueError(f"Brown tasks are {list(BROWN_TASKS)}, got {unknown}.")
    is_word = [[any(ch.isalnum() for ch in w) for w in ws] for ws in tagged.words]
    n_words = np.array([sum(f) for f in is_word])
    seen: set[str] = set()
    keep = []
    for i, ws in enumerate(tagged.words):
        s = " ".join(ws)
        if MIN_WORDS <= n_words[i] <= MAX_WORDS and s not in seen:
            seen.add(s)
            keep.append(i)
    if not keep:
        raise ValueError("no sentence of 5-28 words in the tagged corpus.")
    words = [tagged.words[i] for i in keep]
    tags = [[t.split("-")[0].split("+")[-1].rstrip("*") for t in tagged.tags[i]]
            for i in keep]
    wordy = [is_word[i] for i in keep]
    sentences = [" ".join(ws) for ws in words]
    rng = np.random.default_rng([seed, 4])
    split_of = _stable_split(sentences, "brown-sentence")
    out: Suite = {}

    def make(task: str, labels: np.ndarray, classes: tuple[str, ...],
             texts: Sequence[str], split: np.ndarray) -> None:
        idx = _balanced_draw(labels, split, sizes, len(classes), rng, task)
        out[task] = ClassificationTask(task, {s: LabelledSentences(
            [texts[i] for i in idx[s].tolist()], labels[idx[s]]) for s in SPLITS},
            classes)

    if "SentLen" in tasks:
        bins = tuple(f"{lo}-{lo + 3}" for lo in range(MIN_WORDS, MAX_WORDS, 4))
        make("SentLen", (n_words[keep] - MIN_WORDS) // 4, bins, sentences, split_of)
    if "WC" in tasks:
        counts = Counter(w.lower() for ws, f in zip(words, wordy) for w, ok in zip(ws, f)
                         if ok and w.isalpha())
        ranked = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
        band = ranked[wc_first_rank: wc_first_rank + wc_classes]
        if len(band) < wc_classes:
            raise ValueError(f"the corpus has only {len(ranked)} word types; lower "
                             "wc_first_rank or wc_classes.")
        index = {w: k for k, w in enumerate(band)}
        hits = [[index[w.lower()] for w in ws if w.lower() in index] for ws in words]
        labels = np.array([h[0] if len(h) == 1 else -1 for h in hits])
        make("WC", labels, tuple(band), sentences, split_of)
    if "BShift" in tasks:
        label = (rng.random(len(words)) < 0.5).astype(np.int64)
        texts = []
        for ws, f, flip in zip(words, wordy, label.tolist()):
            can = [k for k in range(len(ws) - 1)
                   if f[k] and f[k + 1] and ws[k] != ws[k + 1]]
            if flip and can:
                k = can[int(rng.integers(len(can)))]
                ws = ws[:k] + [ws[k + 1], ws[k]] + ws[k + 2:]
            texts.append(" ".join(ws))
        make("BShift", label, ("original", "inverted"), texts, split_of)
    if "Tense" in tasks:
        labels, verb = np.full(len(words), -1), [""] * len(words)
        for i, (ws, ts) in enumerate(zip(words, tags)):
            labels[i], verb[i] = _tense_of(ws, ts)
        make("Tense", labels, ("past", "present"), sentences,
             _stable_split(verb, "brown-tense-verb"))
    return out


def suite_sentences(suite: Mapping[str, ClassificationTask]) -> list[str]:
    """Every sentence of every split of a probing suite (what the vocabulary must cover).

    Book: chapter 4 (Probing).
    """
    return [s for task in suite.values() for split in task.splits.values() for s in split.sentences]


def subsample_suite(suite: Mapping[str, ClassificationTask], sizes: Sequence[int]) -> Suite:
    """The first ``sizes = (train, dev, test)`` examples of each split (already shuffled).

    For cheap periodic probes during training.
    Book: chapter 4 (Probing: per-epoch curves).
    """
    sizes = check_sizes(sizes)
    return {name: ClassificationTask(name, {s: LabelledSentences(list(t.splits[s].sentences[:n]),
                                                                 t.splits[s].labels[:n])
                                            for s, n in zip(SPLITS, sizes)}, t.label_names)
            for name, t in suite.items()}


def probing_subset(task: ClassificationTask, sizes: Sequence[int | None],
                   seed: int = 0) -> ClassificationTask:
    """Task ``task`` with each of its train / dev / test splits cut to a seeded random subset of
    ``sizes`` items (``None``: the whole split); e.g. a few hundred sentences of SentEval's
    120k-sentence probing files in smoke.
    Book: chapter 4 (Probing).
    """
    from dataclasses import replace as dc_replace

    rng = np.random.default_rng(seed)
    wanted = dict(zip(("train", "dev", "test"), sizes))
    splits = {}
    for name, split in task.splits.items():
        n = wanted.get(name)
        everything = np.arange(len(split.labels))
        keep = np.sort(rng.permutation(len(split.labels))[:n]) if n is not None else everything
        splits[name] = dc_replace(split, sentences=[split.sentences[i] for i in keep.tolist()],
                                  labels=np.asarray(split.labels)[keep])
    return dc_replace(task, splits=splits)
