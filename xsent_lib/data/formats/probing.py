"""The ten SentEval probing tasks: ``<data_dir>/probing/<file>.txt``, lines
``tr|va|te<TAB>label<TAB>...<TAB>sentence``.

The first field is the partition, the second the class, the last the tokenised sentence; files may
carry extra fields in between, which are ignored.
Book: chapter 4 (Probing).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from xsent_lib.data.formats._io import PathLike, format_error, iter_lines, split_columns
from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences

# paper name -> (SentEval task name, file name)
PROBING_TASKS: dict[str, tuple[str, str]] = {
    "SentLen": ("Length", "sentence_length.txt"),
    "WC": ("WordContent", "word_content.txt"),
    "TreeDepth": ("Depth", "tree_depth.txt"),
    "TopConst": ("TopConstituents", "top_constituents.txt"),
    "BShift": ("BigramShift", "bigram_shift.txt"),
    "Tense": ("Tense", "past_present.txt"),
    "SubjNum": ("SubjNumber", "subj_number.txt"),
    "ObjNum": ("ObjNumber", "obj_number.txt"),
    "SOMO": ("OddManOut", "odd_man_out.txt"),
    "CoordInv": ("CoordinationInversion", "coordination_inversion.txt"),
}
_SPLITS = {"tr": "train", "va": "dev", "te": "test"}
_HINT = (
    "The probing files are in SentEval's data/probing folder "
    "(https://github.com/facebookresearch/SentEval); copy them to <data_dir>/probing/<task "
    "file>.txt, e.g. <data_dir>/probing/past_present.txt."
)


def load_probing_file(path: PathLike, name: str = "probing") -> ClassificationTask:
    """Read one probing file into train/dev/test splits.

    Class ids follow the sorted training labels (SentEval's rule); a dev/test label never seen in
    training is an error, since no classifier could predict it.
    Book: chapter 4 (Probing).
    """
    rows: dict[str, tuple[list[str], list[str],
                          list[int]]] = {split: ([], [], []) for split in _SPLITS.values()}
    for lineno, line in iter_lines(path, _HINT):
        if not line.strip():
            continue
        fields = split_columns(path, lineno, line, 3, "split, label, sentence", _HINT,
                               at_least=True)
        if fields[0] not in _SPLITS:
            raise format_error(path, lineno, "a split tag tr, va or te in the first column",
                               repr(fields[0]), _HINT)
        sentences, labels, linenos = rows[_SPLITS[fields[0]]]
        sentences.append(fields[-1].strip())
        labels.append(fields[1])
        linenos.append(lineno)
    label_names = tuple(sorted(set(rows["train"][1])))
    if not label_names:
        raise format_error(path, 1, "training rows (split tag tr)", "none", _HINT)
    label_id = {label: i for i, label in enumerate(label_names)}
    splits: dict[str, LabelledSentences] = {}
    for split, (sentences, labels, linenos) in rows.items():
        for label, lineno in zip(labels, linenos, strict=True):
            if label not in label_id:
                raise format_error(path, lineno, f"a label seen in training {list(label_names)}",
                                   repr(label), _HINT)
        splits[split] = LabelledSentences(sentences,
                                          np.asarray([label_id[x] for x in labels], dtype=np.int64))
    return ClassificationTask(name, splits, label_names)


def probing_task_name(name: str) -> str:
    """The paper's short name (``"Tense"``, ``"SOMO"``, ...) for a paper or SentEval probing task
    name.

    Book: chapter 4 (Probing).
    """
    if name in PROBING_TASKS:
        return name
    for short, (senteval_name, _file) in PROBING_TASKS.items():
        if name == senteval_name:
            return short
    known = sorted(PROBING_TASKS) + sorted(v[0] for v in PROBING_TASKS.values())
    raise ValueError(f"unknown probing task {name!r}; known names: {known}.")


def load_probing(data_dir: PathLike, task: str) -> ClassificationTask:
    """Load a probing task by paper name (``"BShift"``) or SentEval name (``"BigramShift"``).

    Book: chapter 4 (Probing).
    """
    short = probing_task_name(task)
    return load_probing_file(Path(data_dir) / "probing" / PROBING_TASKS[short][1], short)
