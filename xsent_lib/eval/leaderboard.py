"""One suite for every encoder of the book: transfer, STS, probing, retrieval, mining, XNLI
zero-shot.

:func:`evaluate_on_suite` scores any encoder with ``encode(sentences, lang) -> np.ndarray`` and a
card (languages, ``world_seed``) on the same tasks, reusing the evaluators of chapters 2-9: chapter
3's transfer suite (its STS'14 stand-in gives the STS column), chapter 4's probing tasks, chapter
5's translation retrieval, chapter 9's bitext mining (margin, threshold chosen on dev) and chapter
6's XNLI classifier on frozen vectors. The cross-lingual tasks use the synthetic world's test
streams in every invented language the encoder read; a task that does not apply gives ``{"n/a":
reason}``, never a silent gap. The encoding speed is measured in the same run (sentences per second,
a timing).
Book: chapter 11 (Reproducibility report: the leaderboard).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from xsent_lib.base.threads import single_thread
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.probing_sets import synthetic_probing_sets
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.synthetic.world import DEFAULT_LANGUAGES
from xsent_lib.data.xnli import synthetic_xnli
from xsent_lib.eval.bitext import bucc_evaluate
from xsent_lib.eval.crosslingual import sentence_retrieval
from xsent_lib.eval.engine import Evaluation, batcher_from_function
from xsent_lib.eval.probing import probe_features
from xsent_lib.eval.suite import SuiteSizes
from xsent_lib.eval.transfer_suite import (
    TransferSuite,
    aggregate_transfer,
    transfer_row,
    transfer_suite,
)
from xsent_lib.eval.xnli import vectors_pair_accuracy
from xsent_lib.train.xnli import train_on_vectors

#: the suite's own seed, not a chapter's: every rerun of chapter 11 scores the same tasks, whatever
#: its seed (no chapter trains on the world of this seed, or of the next, which the transfer suite
#: reads)
SUITE_SEED = 9_999
#: the leaderboard's columns, in order: each a task family of the suite
TASKS = ("transfer", "sts", "probing", "retrieval", "mining", "xnli")
#: the synthetic world's invented languages: the cross-lingual tasks use those an encoder reads
INVENTED = tuple(lang for lang in DEFAULT_LANGUAGES if lang != "en")
#: the Table 3.7 accuracy columns whose mean is the transfer score
ACCURACY_COLUMNS = ("MR", "CR", "SUBJ", "MPQA", "SST", "TREC", "MRPC acc", "SICK-E")


class Card(Protocol):
    """What the suite reads from an encoder's card: its name, languages and world seed.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    name: str
    languages: tuple[str, ...]
    world_seed: int | None


class SuiteEncoder(Protocol):
    """Anything the suite can score: a card and ``encode(sentences, lang) -> np.ndarray``.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    card: Card

    def encode(self, sentences: Sequence[str], lang: str = "en") -> np.ndarray: ...


@dataclass(frozen=True)
class LeaderboardSizes:
    """How big each task of the suite is (one per profile: :data:`SIZES`).

    ``transfer``: chapter 3's suite sizes; ``probing``: (train, dev, test) sentences per probing
    task of ``probing_tasks``; ``bitext``: test pairs per language for retrieval, and per split for
    mining, with ``noise`` unpaired sentences on each side; ``xnli``: English (train, dev, test)
    pairs, the test set translated into each language; ``languages``: the invented languages tried;
    ``xnli_epochs``: epochs of the classifier on frozen vectors; ``speed_sentences``: how many
    probing sentences are timed.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    transfer: SuiteSizes
    probing: tuple[int, int, int]
    probing_tasks: tuple[str, ...]
    bitext: int
    noise: int
    xnli: tuple[int, int, int]
    languages: tuple[str, ...] = INVENTED
    xnli_epochs: int = 5
    speed_sentences: int = 500

    def __post_init__(self) -> None:
        if self.bitext < 4 or self.noise < 0 or min(self.probing) < 2 or min(self.xnli) < 3:
            raise ValueError("need bitext >= 4, noise >= 0, probing and xnli sizes >= 2 and 3.")


SIZES = {
    "smoke": LeaderboardSizes(
        SuiteSizes(single=50, nli=(20, 10, 10), sts=(20, 10, 10)),
        (40, 10, 20),
        ("SentLen", "Tense"),
        bitext=20,
        noise=10,
        xnli=(60, 15, 15),
        xnli_epochs=3,
        speed_sentences=64,
    ),
    "book": LeaderboardSizes(
        SuiteSizes(single=300, nli=(300, 100, 100), sts=(300, 100, 100)),
        (300, 100, 200),
        ("SentLen", "TreeDepth", "BShift", "Tense"),
        bitext=200,
        noise=100,
        xnli=(1000, 200, 200),
    ),
    "full": LeaderboardSizes(
        SuiteSizes(single=2000, nli=(2000, 500, 1000), sts=(2000, 500, 1000)),
        (2000, 500, 1000),
        (
            "SentLen",
            "WC",
            "TreeDepth",
            "TopConst",
            "BShift",
            "Tense",
            "SubjNum",
            "ObjNum",
            "SOMO",
            "CoordInv",
        ),
        bitext=1000,
        noise=300,
        xnli=(5000, 1000, 1000),
        xnli_epochs=10,
    ),
}


@dataclass
class LeaderboardSuite:
    """The tasks, built once and shared by every encoder; the cross-lingual data are built per world
    seed (the invented languages' words depend on it) the first time an encoder of that world asks.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    sizes: LeaderboardSizes
    seed: int
    transfer: TransferSuite
    probing: Any
    speed_sentences: list[str]
    _worlds: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    _synthetic: dict[int, SyntheticWorld] = field(default_factory=dict)

    def world(self, world_seed: int, lang: str) -> dict[str, Any]:
        """Bitext, mining corpora and an XNLI-shaped set (English + ``lang``) of the world
        ``world_seed``, built on first use.
        Book: chapter 11 (Reproducibility report: the leaderboard).
        """
        key = (int(world_seed), lang)
        if key not in self._worlds:
            world = self._synthetic.setdefault(key[0], SyntheticWorld(key[0]))
            n = self.sizes.bitext
            self._worlds[key] = {
                "retrieval": world.parallel(n, "en", lang, "test"),
                "mining": {
                    split: _mining_split(world, lang, split, n, self.sizes.noise)
                    for split in ("dev", "test")
                },
                "xnli": synthetic_xnli(
                    world, [lang], *self.sizes.xnli, n_parallel=1, n_parallel_dev=1
                ),
            }
        return self._worlds[key]


def build_suite(sizes: LeaderboardSizes, seed: int) -> LeaderboardSuite:
    """Chapter 3's transfer suite (synthetic, world ``seed + 1``) and chapter 4's probing tasks of
    the
    English synthetic world ``seed``, at ``sizes``.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    transfer = transfer_suite(seed, sizes.transfer, real=False)
    probing = synthetic_probing_sets(SyntheticWorld(seed), sizes.probing, tasks=sizes.probing_tasks)
    sentences = [
        s for task in probing.values() for split in task.splits.values() for s in split.sentences
    ]
    return LeaderboardSuite(sizes, seed, transfer, probing, sentences[: sizes.speed_sentences])


def _mining_split(
    world: SyntheticWorld, lang: str, split: str, n: int, noise: int
) -> dict[str, Any]:
    """``n`` translation pairs hidden among ``noise`` unpaired sentences on each side (shuffled)."""
    pairs = world.parallel(n, "en", lang, split)
    src = pairs.src + world.sentences(noise, "en", split)
    tgt = pairs.tgt + world.sentences(noise, lang, split)
    rng = np.random.default_rng(world.seed)
    ps, pt = rng.permutation(len(src)), rng.permutation(len(tgt))
    inv_s, inv_t = np.argsort(ps), np.argsort(pt)
    gold = np.stack([inv_s[np.arange(n)], inv_t[np.arange(n)]], axis=1)
    return {"src": [src[i] for i in ps], "tgt": [tgt[i] for i in pt], "gold": gold}


def not_applicable(card: Card, suite: LeaderboardSuite, task: str) -> str | None:
    """Why ``task`` does not apply to the encoder of ``card`` (``None`` when it does).

    English tasks need English; cross-lingual ones need English and at least one of the suite's
    invented languages read in a synthetic world (``card.world_seed``), since their words exist
    nowhere else.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the suite has {TASKS}.")
    if "en" not in card.languages:
        return "does not read English"
    if task in ("transfer", "sts", "probing"):
        return None
    targets = [lang for lang in suite.sizes.languages if lang in card.languages]
    if not targets:
        others = " ".join(lang for lang in card.languages if lang != "en")
        return f"no invented language (reads {others})" if others else "English only"
    if card.world_seed is None:
        return "no world seed on its card (its invented words are unknown)"
    return None


def _languages(card: Card, suite: LeaderboardSuite) -> list[str]:
    return [lang for lang in suite.sizes.languages if lang in card.languages]


def _transfer(encoder: SuiteEncoder, suite: LeaderboardSuite, seed: int) -> dict[str, Any]:
    params = {"seed": seed, "device": "cpu", "tokenized": False, "batch_size": 1024, "mode": "fast"}
    ev = Evaluation(params, batcher_from_function(lambda s: encoder.encode(s, "en")))
    results = ev.eval(suite.transfer.tasks)
    row = transfer_row(results, suite.transfer.papers)
    accs = [row[c] for c in ACCURACY_COLUMNS if c in row]
    return {
        "row": row,
        "macro_dev": aggregate_transfer(results)["macro"],
        "score": float(np.mean(accs)) if accs else None,
    }


def _probing(encoder: SuiteEncoder, suite: LeaderboardSuite, seed: int) -> dict[str, Any]:
    features = {
        name: {split: encoder.encode(data.sentences, "en") for split, data in task.splits.items()}
        for name, task in suite.probing.items()
    }
    accs = probe_features(
        features, suite.probing, probe="logreg", mode="fast", seed=seed, device="cpu"
    )
    return {"tasks": accs, "score": float(np.mean(list(accs.values())))}


def _retrieval(encoder: SuiteEncoder, suite: LeaderboardSuite, langs: list[str]) -> dict[str, Any]:
    out = {}
    for lang in langs:
        pairs = suite.world(encoder.card.world_seed, lang)["retrieval"]
        res = sentence_retrieval(
            encoder.encode(pairs.src, "en"),
            encoder.encode(pairs.tgt, lang),
            methods=("nn",),
            ks=(1,),
        )
        out[lang] = 0.5 * (res["src_to_tgt"]["nn"]["p@1"] + res["tgt_to_src"]["nn"]["p@1"])
    return {"languages": out, "score": float(np.mean(list(out.values())))}


def _mining(encoder: SuiteEncoder, suite: LeaderboardSuite, langs: list[str]) -> dict[str, Any]:
    out = {}
    for lang in langs:
        splits = suite.world(encoder.card.world_seed, lang)["mining"]
        parts = [
            (encoder.encode(s["src"], "en"), encoder.encode(s["tgt"], lang), s["gold"])
            for s in (splits["dev"], splits["test"])
        ]
        k = max(1, min(4, len(parts[0][1]) - 1))
        out[lang] = bucc_evaluate(parts[0], parts[1], k=k, mode="ratio")["f1"]
    return {"languages": out, "score": float(np.mean(list(out.values())))}


def _xnli(
    encoder: SuiteEncoder, suite: LeaderboardSuite, langs: list[str], seed: int
) -> dict[str, Any]:
    benches = {lang: suite.world(encoder.card.world_seed, lang)["xnli"] for lang in langs}
    bench = benches[langs[0]]  # the English sets are the same in every language's benchmark
    corpus = NLICorpus(bench.train, bench.dev["en"], bench.test["en"], bench.source)
    run = train_on_vectors(
        encoder.card.name,
        lambda s: encoder.encode(s, "en"),
        corpus,
        epochs=suite.sizes.xnli_epochs,
        device="cpu",
        seed=seed,
    )
    out = {
        lang: vectors_pair_accuracy(
            run.classifier,
            lambda s, lang=lang: encoder.encode(s, lang),
            benches[lang].test[lang],
            device="cpu",
        )
        for lang in langs
    }
    return {"en": run.test_acc, "languages": out, "score": float(np.mean(list(out.values())))}


def evaluate_on_suite(
    encoder: SuiteEncoder, suite: LeaderboardSuite, *, seed: int
) -> dict[str, Any]:
    """Every task of ``suite`` on ``encoder``: ``{task: {"score": ..., ...} or {"n/a": reason}}``
    for
    the tasks of :data:`TASKS`, and ``"speed"``: sentences per second when encoding the probing
    sentences in English (a timing, measured now; ``None`` when English does not apply).

    Scores are percentages except ``sts`` (Pearson r of cosine similarities on the STS'14 stand-in,
    as in chapter 3); ``transfer`` is the mean test accuracy of the Table 3.7 columns.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    card = encoder.card
    out: dict[str, Any] = {}
    with single_thread():
        speed = None
        if "en" in card.languages:
            t0 = time.perf_counter()
            encoder.encode(suite.speed_sentences, "en")
            speed = len(suite.speed_sentences) / max(time.perf_counter() - t0, 1e-9)
        for task in TASKS:
            reason = not_applicable(card, suite, task)
            if reason is not None:
                out[task] = {"n/a": reason}
            elif task == "transfer":
                res = _transfer(encoder, suite, seed)
                out["transfer"] = {
                    "score": res["score"],
                    "macro_dev": res["macro_dev"],
                    "row": res["row"],
                }
                sts = res["row"].get("STS14 Pearson")
                out["sts"] = (
                    {"n/a": "the transfer suite has no STS task"}
                    if sts is None
                    else {"score": sts, "spearman": res["row"].get("STS14 Spearman")}
                )
            elif task == "sts":
                continue  # computed with the transfer suite above
            elif task == "probing":
                out[task] = _probing(encoder, suite, seed)
            else:
                langs = _languages(card, suite)
                out[task] = (
                    _retrieval(encoder, suite, langs)
                    if task == "retrieval"
                    else _mining(encoder, suite, langs)
                    if task == "mining"
                    else _xnli(encoder, suite, langs, seed)
                )
    out["speed"] = {"sentences_per_s": speed}
    return out
