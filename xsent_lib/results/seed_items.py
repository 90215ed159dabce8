"""Every table and figure of the seed documents, and where a chapter run stores our version of it.

One declared registry, kept as data: for each published item (a table or prose block of
``results/paper/<seed>.json``, or a figure of the spec), the chapter runs that regenerate it, the
``metrics.json`` key (and the path below it) that holds our numbers, how our row and column labels
map to the paper's, the factor that puts our values on the paper's scale, the tolerance within which
a cell counts as reproduced, and, in words, why a part is missing. Chapter 11 reads this registry
and the stored runs; it never parses prose. A cell is linked where our row and column carry the
paper's labels; a chapter that logs a stand-in under the paper's labels (``en-xa`` as ``en-it``) is
marked ``stand_in``, and its cells say so.
Book: chapter 11 (Reproducibility report).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: the seed document whose claims each chapter tests (chapter 0 tests the machine, not a paper)
CHAPTER_SEED: dict[str, str] = {
    "01_data": "thesis",
    "02_senteval": "thesis",
    "03_infersent": "thesis",
    "04_probing": "thesis",
    "05_muse": "thesis",
    "06_xnli": "xnli2018",
    "07_aldarmaki": "aldarmaki2019",
    "08_wieting": "wieting2019",
    "09_wang": "wang2019",
    "10_xlm": "thesis",
}


@dataclass(frozen=True)
class Link:
    """Where one chapter run keeps numbers of a published item: ``metrics[key][sub...]`` is a table
    ``{row: {column: value}}`` (or, with ``row``, one flat row ``{column: value}``). ``rows`` and
    ``columns`` rename our labels to the paper's (unnamed labels are kept); ``scale`` multiplies our
    values onto the paper's scale; ``wide`` reads the columns ``"('fr', 'ours')"`` of a logged
    side-by-side table; ``stand_in`` marks a chapter that logs stand-in data under the paper's
    labels (e.g. en-xa as en-it).

    Book: chapter 11 (Reproducibility report).
    """

    chapter: str
    key: str
    sub: tuple[str, ...] = ()
    row: str = ""
    rows: Mapping[str, str] = field(default_factory=dict)
    columns: Mapping[str, str] = field(default_factory=dict)
    scale: float = 1.0
    wide: bool = False
    stand_in: bool = False


@dataclass(frozen=True)
class SeedItem:
    """One published table or figure: ``seed`` and ``item`` (``"table_3_6"``, ``"figure_3_5"``), a
    short ``title``, the runs that regenerate it (``links``; none: paper only or absent), the
    tolerance ``tol`` in the paper's unit within which a cell counts as reproduced, and ``why`` what
    is missing and why.

    Book: chapter 11 (Reproducibility report).
    """

    seed: str
    item: str
    title: str
    links: tuple[Link, ...] = ()
    tol: float = 1.0
    why: str = ""
    settings: tuple[str, ...] = ()

    @property
    def is_figure(self) -> bool:
        """Figures have no stored numbers (only captions survive in the seeds).

        Book: chapter 11 (Reproducibility report).
        """
        return self.item.startswith("figure_")


_STAND_IN = "our runs use stand-in languages or tasks with no paper column"
_NOT_LOGGED = "no chapter logs it"
_SCHEMATIC = "a schematic: no data to regenerate"


def _t(
    item: str,
    title: str,
    *links: Link,
    tol: float = 1.0,
    why: str = "",
    settings: tuple[str, ...] = (),
) -> SeedItem:
    return SeedItem("thesis", item, title, links, tol, why, settings)


THESIS: tuple[SeedItem, ...] = (
    _t(
        "table_3_1",
        "SentEval classification tasks",
        Link("02_senteval", "table_3_1"),
        why="logged as stand-in tasks with their own sizes; the paper's sizes are not comparable",
    ),
    _t(
        "table_3_2",
        "NLI and STS tasks",
        Link("02_senteval", "table_3_2"),
        why="logged as stand-in tasks with their own sizes; the paper's sizes are not comparable",
    ),
    _t(
        "table_3_3",
        "Transfer results of baselines",
        Link("02_senteval", "table_3_3"),
        why="only the baselines and tasks the synthetic suite has (MR, SUBJ, MRPC, SICK-E)",
    ),
    _t(
        "table_3_4",
        "STS results of baselines",
        Link("02_senteval", "table_3_4", scale=100.0),
        why="STS'12-16 and STS-B are stand-ins (Syn-STS); only SICK-R and STS'14 columns match",
    ),
    _t(
        "table_3_5",
        "SentEval classification tasks (= Table 3.1)",
        Link("02_senteval", "table_3_1"),
        why="a duplicate of Table 3.1: stand-in tasks with their own sizes",
    ),
    _t(
        "table_3_6",
        "Encoders on SNLI and aggregated transfer",
        Link("03_infersent", "table_3_6"),
        why="dims are ours (small); the paper's 2048-4096 are out of CPU reach",
        settings=("dim",),
    ),
    _t(
        "table_3_7",
        "Transfer results by training data",
        Link("03_infersent", "table_3_7"),
        tol=1.0,
        why="our seven NLI encoders are new rows; paper rows of other systems are not retrained",
    ),
    _t(
        "table_3_8",
        "COCO caption / image retrieval",
        Link("03_infersent", "table_3_8"),
        why="COCO images are absent: scene vectors stand in; other systems are not retrained",
    ),
    _t("table_3_9", "Seq2seq training examples", why="qualitative examples; " + _NOT_LOGGED),
    _t(
        "table_3_10",
        "Probing accuracies (MLP)",
        Link("04_probing", "table_3_10"),
        why="SkipThought/Seq2Tree rows and TreeDepth/TopConst/Tense columns need parses we lack",
    ),
    _t(
        "table_3_11",
        "Training-task results (BLEU, accuracy)",
        Link("04_probing", "table_3_11"),
        why="only En-Fr NMT on a tiny stand-in corpus; En-De, En-Fi, Seq2Tree, NLI are not trained",
    ),
    _t(
        "table_3_12",
        "Probing accuracies (logistic regression)",
        Link("04_probing", "table_3_12"),
        why="as Table 3.10",
    ),
    _t(
        "table_3_13",
        "Downstream tasks of the probing encoders",
        Link("04_probing", "table_3_13"),
        why="only the downstream tasks of the synthetic suite; literature rows are not retrained",
    ),
    _t("table_4_1", "Word translation P@1", Link("05_muse", "table_4_1"), why=_STAND_IN),
    _t(
        "table_4_2",
        "English-Italian word translation",
        Link("05_muse", "table_4_2", sub=("rows",), stand_in=True),
        why=_STAND_IN + " (en-xa stands in for en-it)",
    ),
    _t(
        "table_4_3",
        "English-Italian sentence retrieval",
        Link("05_muse", "table_4_3", sub=("rows",), stand_in=True),
        why=_STAND_IN + " (en-xa stands in for en-it)",
    ),
    _t(
        "table_4_4",
        "Cross-lingual word similarity (SemEval'17)",
        why="SemEval 2017 task 2 data are not in the cache; " + _NOT_LOGGED,
    ),
    _t(
        "table_4_5",
        "Word-by-word BLEU en-eo",
        Link("05_muse", "table_4_5", sub=("rows",), scale=100.0, stand_in=True),
        why=_STAND_IN + " (en-xa stands in for en-eo)",
    ),
    _t(
        "table_4_6",
        "Word-by-word translation examples",
        Link("05_muse", "table_4_6"),
        why="qualitative; regenerated on a stand-in pair",
    ),
    _t("table_4_7", "XNLI examples", Link("06_xnli", "table_1"), why="qualitative; regenerated"),
    _t(
        "table_4_8",
        "XNLI tokens per sentence",
        Link("01_data", "table_4_8"),
        why="only en is real; the other columns are stand-in languages",
    ),
    _t(
        "table_4_9",
        "BLEU of the MT systems, word P@1",
        Link("06_xnli", "table_4_9"),
        why="the paper's internal MT systems are not available; our word-by-word rows are new",
    ),
    _t(
        "table_4_10",
        "XNLI test accuracy",
        Link("06_xnli", "thesis_table_4_10", wide=True),
        why="only the languages the run covers; the rest of the 15 need data we lack",
    ),
    _t(
        "table_4_11",
        "XNLI alignment ablation",
        Link("06_xnli", "thesis_table_4_11", wide=True),
        why="only fr is run; ru and zh need parallel data we lack",
    ),
    _t(
        "table_4_12",
        "XLM cross-lingual classification",
        Link("10_xlm", "table_4_12"),
        why="a tiny XLM on the languages of the run; the other 13 columns need data we lack",
    ),
    _t(
        "table_4_13",
        "Unsupervised MT (BLEU)",
        why="XLM translation training is not reproduced (chapter 10)",
    ),
    _t(
        "table_4_14",
        "Supervised MT (BLEU)",
        why="XLM translation training is not reproduced (chapter 10)",
    ),
    _t(
        "table_4_15",
        "Nepali perplexity",
        Link("10_xlm", "table_4_15_synthetic", stand_in=True),
        why="synthetic stand-ins for Nepali, English and Hindi; perplexities are not comparable",
    ),
    _t(
        "table_4_16",
        "Cross-lingual word embeddings",
        Link("10_xlm", "table_4_16"),
        why="logged per pair (real en-fr, synthetic) with the paper's methods as a nested level",
    ),
    _t("figure_3_1", "Generic NLI training scheme", why=_SCHEMATIC),
    _t("figure_3_2", "BiLSTM max-pooling network", why=_SCHEMATIC),
    _t("figure_3_3", "Inner-attention network", why=_SCHEMATIC),
    _t("figure_3_4", "Hierarchical ConvNet", why=_SCHEMATIC),
    _t("figure_3_5", "Transfer vs embedding size", Link("03_infersent", "figure_3_5")),
    _t("figure_3_6", "Max-pooling, pair A, untrained", Link("03_infersent", "maxpool_gallery")),
    _t("figure_3_7", "Max-pooling, pair A, trained", Link("03_infersent", "maxpool_gallery")),
    _t("figure_3_8", "Max-pooling, pair B, untrained", Link("03_infersent", "maxpool_gallery")),
    _t("figure_3_9", "Max-pooling, pair B, trained", Link("03_infersent", "maxpool_gallery")),
    _t("figure_3_10", "Probing scores per training epoch", Link("04_probing", "figure_3_10")),
    _t("figure_3_11", "Probing vs downstream correlations", Link("04_probing", "figure_3_11")),
    _t("figure_3_12", "Probing vs embedding size", Link("04_probing", "figure_3_12")),
    _t("figure_4_1", "MUSE toy illustration", Link("05_muse", "figure_4_1")),
    _t("figure_4_2", "Unsupervised model selection", Link("05_muse", "figure_4_2")),
    _t("figure_4_3", "English-English word alignment", Link("05_muse", "figure_4_3")),
    _t("figure_4_4", "Language adaptation by alignment", why=_SCHEMATIC),
    _t("figure_4_5", "Alignment loss vs XNLI accuracy", Link("06_xnli", "figure_2")),
    _t("figure_4_6", "MLM and TLM pretraining", Link("10_xlm", "figure_4_6")),
)

XNLI: tuple[SeedItem, ...] = (
    SeedItem(
        "xnli2018",
        "table_1",
        "XNLI examples",
        (Link("06_xnli", "table_1"),),
        why="qualitative; regenerated",
    ),
    SeedItem(
        "xnli2018",
        "prose_1_sizes",
        "XNLI size (dev + test pairs)",
        (Link("06_xnli", "table_1_counts"),),
        why="the run's languages, at the profile's size",
    ),
    SeedItem(
        "xnli2018",
        "table_2",
        "Tokens per sentence (= thesis Table 4.8)",
        (Link("01_data", "table_4_8"),),
        why="= thesis Table 4.8: only en is real; the other columns are stand-in languages",
    ),
    SeedItem(
        "xnli2018",
        "table_3",
        "BLEU of the MT systems (= thesis Table 4.9)",
        (Link("06_xnli", "table_4_9"),),
        why="= thesis Table 4.9: the internal MT systems are not available",
    ),
    SeedItem(
        "xnli2018",
        "table_4",
        "XNLI test accuracy",
        (Link("06_xnli", "table_4"),),
        why="only the languages the run covers",
    ),
    SeedItem(
        "xnli2018",
        "table_5",
        "Alignment ablation",
        (Link("06_xnli", "table_5"),),
        why="only fr is run; ru and zh need parallel data we lack",
    ),
    SeedItem("xnli2018", "figure_1", "Language adaptation by alignment", why=_SCHEMATIC),
    SeedItem("xnli2018", "figure_2", "Alignment loss vs accuracy", (Link("06_xnli", "figure_2"),)),
)

WIETING: tuple[SeedItem, ...] = (
    SeedItem(
        "wieting2019",
        "table_1",
        "Back-translation vs bitext (STS)",
        (Link("08_wieting", "table_1"),),
        why="ParaNMT and CzEng are absent; our rows train on a small bitext with other sizes",
    ),
    SeedItem(
        "wieting2019",
        "table_2",
        "STS 2017",
        (Link("08_wieting", "table_2", sub=("rows",)),),
        settings=("Dim",),
        why="STS 2017 is replaced by a synthetic en-xa set; " + _STAND_IN,
    ),
    SeedItem(
        "wieting2019",
        "table_3",
        "BUCC mining",
        (Link("08_wieting", "table_3"),),
        why="BUCC is absent: mining on a held-out bitext with our vocabulary sizes",
    ),
    SeedItem(
        "wieting2019",
        "table_4",
        "Encoding speed",
        (Link("08_wieting", "table_4_rows"),),
        settings=("Dim",),
        why="logged per device and regime; the GP100 speeds are hardware-bound",
    ),
    SeedItem(
        "wieting2019",
        "table_5",
        "STS vs overlap and distance",
        (Link("08_wieting", "table_5"),),
        why="46 OpenSubtitles languages are not available; a handful of pairs stand in",
    ),
    SeedItem(
        "wieting2019",
        "prose_4_2_correlations",
        "Further correlations (Sec. 4.2)",
        why="needs the 46-language study; " + _NOT_LOGGED,
    ),
    SeedItem(
        "wieting2019",
        "figure_1",
        "STS vs SP overlap, 46 languages",
        (Link("08_wieting", "language_choice"),),
        why="a handful of pairs, not 46",
    ),
)

WANG: tuple[SeedItem, ...] = (
    SeedItem(
        "wang2019",
        "table_1",
        "XNLI with frozen encoders",
        (Link("09_wang", "table_1"),),
        why="only the languages of the run; LASER needs its model, not shipped",
    ),
    SeedItem(
        "wang2019",
        "table_2",
        "RCV2 headline classification",
        (Link("09_wang", "table_2", stand_in=True),),
        why="RCV2 is licensed: LibreOffice help stands in, with its directions",
    ),
    SeedItem(
        "wang2019",
        "table_3",
        "Sample size m",
        (Link("09_wang", "table_3"),),
        why="RCV2 is licensed; en-es and es-en at our m stand in for en-zh and zh-en",
    ),
    SeedItem("wang2019", "figure_1", "Architecture", why=_SCHEMATIC),
    SeedItem(
        "wang2019",
        "figure_2",
        "Training corpora (w-w vs b-w)",
        why="Toronto Book Corpus is not available; " + _NOT_LOGGED,
    ),
    SeedItem("wang2019", "figure_3", "Accuracy vs iterations", (Link("09_wang", "figure_3_help"),)),
)

ALDARMAKI: tuple[SeedItem, ...] = (
    SeedItem(
        "aldarmaki2019",
        "table_1",
        "Monolingual nearest neighbours",
        (Link("07_aldarmaki", "table_1"),),
        why="qualitative; regenerated",
    ),
    SeedItem(
        "aldarmaki2019",
        "table_2",
        "Cross-lingual nearest neighbours",
        (Link("07_aldarmaki", "table_2"),),
        why="qualitative; regenerated",
    ),
    SeedItem(
        "aldarmaki2019",
        "prose_4_3_nli_accuracy",
        "Joint InferSent NLI accuracy (prose)",
        (Link("07_aldarmaki", "joint_nli_accuracy", row="joint InferSent"),),
        tol=2.0,
    ),
    SeedItem("aldarmaki2019", "figure_1", "Training objectives", why=_SCHEMATIC),
    SeedItem("aldarmaki2019", "figure_2", "NMT / SDAE encoder-decoder", why=_SCHEMATIC),
    SeedItem("aldarmaki2019", "figure_3", "Joint InferSent example", why=_SCHEMATIC),
    SeedItem("aldarmaki2019", "figure_4", "Representation transfer", why=_SCHEMATIC),
    SeedItem(
        "aldarmaki2019",
        "figure_5",
        "Retrieval vs bitext size, SDAE family",
        (Link("07_aldarmaki", "retrieval_table"),),
        why="bitext sizes of the run, not 1K-1M",
    ),
    SeedItem(
        "aldarmaki2019",
        "figure_6",
        "Retrieval vs bitext size, InferSent family",
        (Link("07_aldarmaki", "retrieval_table"),),
        why="bitext sizes of the run, not 1K-1M",
    ),
    SeedItem(
        "aldarmaki2019",
        "figure_7",
        "Average retrieval, best of each family",
        (Link("07_aldarmaki", "records"),),
        why="bitext sizes of the run, not 1K-1M",
    ),
    SeedItem(
        "aldarmaki2019",
        "table_cldc",
        "CLDC accuracies (missing from the extraction)",
        (Link("07_aldarmaki", "cls_table"),),
        why="the paper's table is lost in the seed: our numbers have nothing to stand beside",
    ),
)

#: every published item of the five seed documents, in reading order
SEED_ITEMS: tuple[SeedItem, ...] = THESIS + XNLI + WIETING + WANG + ALDARMAKI
