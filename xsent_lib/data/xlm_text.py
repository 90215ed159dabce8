"""Chapter 10's text: the synthetic world's XNLI-shaped benchmark with monolingual text and bitext,
the real XNLI from a data folder, and the real monolingual text and bitext cut from the data cache
without overlap.

Book: chapter 10 (Cross-lingual language models, XLM).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from xsent_lib.data.corpora import load_bitext
from xsent_lib.data.synthetic import SyntheticWorld
from xsent_lib.data.xnli import XNLIBenchmark, real_xnli, synthetic_xnli


class TextSizes(Protocol):
    """The sizes these functions read from a chapter's plan (e.g. ``recipes.xlm.XLMPlan``).

    Book: chapter 10 (Cross-lingual language models, XLM).
    """

    @property
    def targets(self) -> tuple[str, ...]: ...
    @property
    def n_mono(self) -> int: ...
    @property
    def n_parallel(self) -> int: ...
    @property
    def n_train(self) -> int: ...
    @property
    def n_dev(self) -> int: ...
    @property
    def n_test(self) -> int: ...
    @property
    def real_mono(self) -> int: ...
    @property
    def real_pairs(self) -> int: ...
    @property
    def real_low(self) -> int: ...


def synthetic_data(
    plan: TextSizes, seed: int
) -> tuple[
    XNLIBenchmark,
    SyntheticWorld,
    dict[str, list[str]],
    dict[tuple[str, str], tuple[list[str], list[str]]],
]:
    """The synthetic world's XNLI-shaped benchmark (chapter 6's sets), monolingual text and bitext.

    Monolingual text per language is drawn from the world's own stream for that language
    (comparable, not parallel, corpora); the bitext is the benchmark's (the world's ``parallel``
    stream, never the NLI forms).
    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    world = SyntheticWorld(seed)
    bench = synthetic_xnli(
        world,
        plan.targets,
        plan.n_train,
        plan.n_dev,
        plan.n_test,
        plan.n_parallel,
        max(50, plan.n_dev // 2),
    )
    mono = {lang: world.sentences(plan.n_mono, lang) for lang in ["en", *plan.targets]}
    bitext = {("en", lang): bench.parallel[lang] for lang in plan.targets}
    return bench, world, mono, bitext


def real_xnli_data(
    plan: TextSizes, data_dir: str | Path, languages: Sequence[str] = ("fr", "de", "es")
) -> XNLIBenchmark:
    """Real XNLI 1.0 + XNLI-MT 1.0 from ``data_dir`` (any profile, at its plan's sizes), for those
    of ``languages`` (the real-text model's) that have an XNLI-MT training file; the others are
    named in ``notes``.

    Book: chapter 10 (Cross-lingual language models, XLM).
    """
    mt = Path(data_dir) / "XNLI-MT-1.0" / "multinli"
    have = [lang for lang in languages if (mt / f"multinli.train.{lang}.tsv").is_file()]
    if not have:
        raise FileNotFoundError(f"no XNLI-MT training file for {list(languages)} under {mt}.")
    bench = real_xnli(data_dir, have, max_train=plan.n_train, max_parallel=plan.n_parallel)
    missing = [lang for lang in languages if lang not in have]
    if missing:
        bench.notes.append(f"languages without XNLI-MT files in data_dir, skipped: {missing}")
    return bench


def real_text_sizes(plan: TextSizes) -> tuple[dict[str, int], dict[tuple[str, str], int]]:
    """Sentences per language and pairs per bitext that :func:`real_text` cuts for ``plan`` (at
    most: the Bible may hold fewer pairs). Book: chapter 10 (Cross-lingual language models, XLM:
    real text).
    """
    mono = {"en": plan.real_mono, "fr": plan.real_mono, "de": plan.real_mono, "es": plan.real_low}
    return mono, {("en", lang): plan.real_pairs for lang in ("fr", "de", "es")}


def real_text(
    plan: TextSizes,
) -> tuple[dict[str, list[str]], dict[tuple[str, str], tuple[list[str], list[str]]]]:
    """Monolingual text and bitext from the data cache, cut so that no sentence is in two places.

    nlp-corpus's English is the source of both its French and German (machine) translations, so the
    monolingual English, French and German come from disjoint ranges of its lines and the bitext
    from a further range; Spanish, the low-resource language, is the Bible's Reina-Valera side
    (``real_low`` verses) and its bitext the next verses. Raises FileNotFoundError naming the
    command when not cached.
    Book: chapter 10 (Cross-lingual language models, XLM: real text).
    """
    n, m = plan.real_mono, plan.real_pairs
    en_fr = load_bitext("nlp-en-fr", max_pairs=3 * n + 2 * m)
    en_de = load_bitext("nlp-en-de", max_pairs=3 * n + 2 * m)
    en_es = load_bitext("bible-en-es", max_pairs=plan.real_low + m)
    mono = {
        "en": en_fr[0][:n],
        "fr": en_fr[1][n : 2 * n],
        "de": en_de[1][2 * n : 3 * n],
        "es": en_es[1][: plan.real_low],
    }
    bitext = {
        ("en", "fr"): (en_fr[0][3 * n : 3 * n + m], en_fr[1][3 * n : 3 * n + m]),
        ("en", "de"): (en_de[0][3 * n + m : 3 * n + 2 * m], en_de[1][3 * n + m : 3 * n + 2 * m]),
        ("en", "es"): (en_es[0][plan.real_low :], en_es[1][plan.real_low :]),
    }
    return mono, bitext
