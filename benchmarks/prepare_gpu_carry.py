"""Prepare what the GPU side-by-side run carries to a lent machine (no network or data cache there).

    python benchmarks/prepare_gpu_carry.py --muse MUSE_GIT_DIR --infersent INFERSENT_GIT_DIR
        [--out .gl/gpu]

Writes into ``--out`` (``/.gl/`` is gitignored; name it as the device call's carry path):

- ``ref/MUSE/src/``: MUSE's ``src`` package as published (its evaluator is the CSLS reference),
  read with ``git show`` from a clone of facebookresearch/MUSE; never part of the library;
- ``ref/InferSent/models.py``: InferSent's ``models.py`` with its one numpy >= 1.24 fix (sentences
  of different lengths need ``np.array(sentences, dtype=object)``);
- ``sp/sents.txt`` and ``sp/sp20k.model``: Wieting et al.'s Table 4 protocol, 128,000 distinct
  English sentences (the English sides of nlp-en-fr, nlp-en-de, bible-en-es and lohelp-en-fr, in
  that order, from the data cache) and a 20k unigram sentencepiece model trained on them;
- ``refs.json``: the reference commits and the sentence count.
Book: chapter 5 (Word translation without parallel data).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from xsent_lib.data.corpora.bitext import load_bitext
from xsent_lib.text.tokenizers import train_sentencepiece

MUSE_FILES = (
    "src/__init__.py",
    "src/utils.py",
    "src/dictionary.py",
    "src/logger.py",
    "src/evaluation/__init__.py",
    "src/evaluation/evaluator.py",
    "src/evaluation/word_translation.py",
    "src/evaluation/sent_translation.py",
    "src/evaluation/wordsim.py",
    "src/dico_builder.py",
    "src/models.py",
    "src/trainer.py",
)
INFERSENT_FIX = (
    "sentences = np.array(sentences)[idx_sort]",
    "sentences = np.array(sentences, dtype=object)[idx_sort]",
)
TABLE4_CORPORA = ("nlp-en-fr", "nlp-en-de", "bible-en-es", "lohelp-en-fr")


def git_show(git_dir: Path, path: str) -> str:
    """One file of a repository's HEAD.

    Book: chapter 5 (Word translation without parallel data).
    """
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"HEAD:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def head(git_dir: Path) -> str:
    """The repository's HEAD commit.

    Book: chapter 5 (Word translation without parallel data).
    """
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def table4_sentences(n: int = 128_000) -> list[str]:
    """The first ``n`` distinct English sentences of Table 4's corpora, in order.

    Book: chapter 8 (Paraphrastic embeddings from bitext: encoding speed).
    """
    seen: set[str] = set()
    out: list[str] = []
    for name in TABLE4_CORPORA:
        for s in load_bitext(name)[0]:
            s = s.strip()
            if s and "\n" not in s and s not in seen:
                seen.add(s)
                out.append(s)
    if len(out) < n:
        raise ValueError(f"only {len(out)} distinct sentences in {TABLE4_CORPORA}; need {n}.")
    return out[:n]


def main() -> None:
    """Write the references and the SP inputs.

    Book: chapter 5 (Word translation without parallel data).
    """
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--muse", type=Path, required=True, help="git dir of facebookresearch/MUSE")
    ap.add_argument(
        "--infersent", type=Path, required=True, help="git dir of facebookresearch/InferSent"
    )
    ap.add_argument("--out", type=Path, default=Path(".gl/gpu"))
    args = ap.parse_args()
    for rel in MUSE_FILES:
        dest = args.out / "ref" / "MUSE" / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(git_show(args.muse, rel), encoding="utf-8")
    models = git_show(args.infersent, "models.py")
    if INFERSENT_FIX[0] not in models:
        raise ValueError(
            "InferSent's models.py changed: the numpy fix no longer applies; check it by hand."
        )
    dest = args.out / "ref" / "InferSent" / "models.py"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(models.replace(*INFERSENT_FIX), encoding="utf-8")
    sents = table4_sentences()
    (args.out / "sp").mkdir(parents=True, exist_ok=True)
    (args.out / "sp" / "sents.txt").write_text("\n".join(sents), encoding="utf-8")
    train_sentencepiece(sents, 20_000, args.out / "sp" / "sp20k", seed=0)
    (args.out / "refs.json").write_text(
        json.dumps(
            {
                "MUSE": head(args.muse),
                "InferSent": head(args.infersent),
                "infersent_fix": INFERSENT_FIX,
                "table4_sentences": len(sents),
                "table4_corpora": TABLE4_CORPORA,
            },
            indent=1,
        )
    )
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
