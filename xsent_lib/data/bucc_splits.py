"""BUCC 2018 mining splits read for a bitext of the data cache: which folder of ``data_dir`` holds a
pair's files, and which gold-annotated split chooses the threshold and which one is scored (BUCC's
protocol).

Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from xsent_lib.data.formats.bucc import cap_bucc, load_bucc


def bucc_folder(data_dir: str | Path, lang: str, target: str = "en") -> Path | None:
    """The folder of BUCC 2018's ``<lang>-<target>`` files under ``data_dir``:
    ``data_dir/bucc2018/<lang>-<target>`` (the layout of :mod:`xsent_lib.data.formats.bucc`'s
    fixtures), ``data_dir/<lang>-<target>`` (an archive unpacked in place) or ``data_dir`` itself;
    ``None`` when none holds ``<lang>-<target>.*.<lang>`` files.
    Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
    """
    root = Path(data_dir)
    for folder in (root / "bucc2018" / f"{lang}-{target}", root / f"{lang}-{target}", root):
        if any(folder.glob(f"{lang}-{target}.*.{lang}")):
            return folder
    return None


def bucc_splits(
    data_dir: str | Path, pair: str, *, max_sentences: int | None = None, seed: int = 0
) -> dict[str, Any] | None:
    """BUCC 2018 mining splits for our bitext ``pair`` (``"nlp-en-fr"`` -> BUCC ``fr-en``), read
    with :func:`~xsent_lib.data.formats.bucc.load_bucc` from :func:`bucc_folder`, in the form of
    :func:`~xsent_lib.eval.paraphrase_study.mining_splits` (``"dev"`` and ``"test"`` as ``(source,
    target, gold)``, source = the non-English side as in BUCC) plus ``"protocol"``, ``"pair"``
    (``"en-fr"``), ``"folder"`` and ``"kept"`` (what each split kept, in words).

    ``max_sentences`` caps each side of each split (the chapter passes the profile's limit;
    ``None``: all) with :func:`~xsent_lib.data.formats.bucc.cap_bucc`: a ``seed``-ed sample that
    keeps gold pairs whole and BUCC's share of sentences with a translation; the gold is the
    published pairs whose two sides are both kept.

    BUCC's protocol: the threshold is chosen on gold-annotated data (``training``, else ``sample``)
    and F1 is reported on ``test``. BUCC did not publish the test gold with the test files; when
    ``<pair>.test.gold`` is absent the threshold is chosen on ``sample`` and F1 is reported on
    ``training`` (said in ``"protocol"``). Returns ``None`` when ``data_dir`` holds no files of the
    pair; raises FileNotFoundError when the files present allow neither protocol.
    Book: chapter 8 (Paraphrastic embeddings from bitext: mining).
    """
    parts = pair.split("-")
    if len(parts) < 3 or parts[-2] != "en":
        raise ValueError(f"pair must name an English-X bitext such as 'nlp-en-fr', got {pair!r}.")
    lang = parts[-1]
    folder = bucc_folder(data_dir, lang)
    if folder is None:
        return None

    def has(split: str, gold: bool = True) -> bool:
        stem = folder / f"{lang}-en.{split}"
        return all(
            Path(f"{stem}.{ext}").is_file() for ext in (lang, "en") + (("gold",) if gold else ())
        )

    if has("test"):
        dev, test = ("training" if has("training") else "sample"), "test"
        if not has(dev):
            raise FileNotFoundError(
                f"{folder} has {lang}-en.test.gold but no gold-annotated training or sample "
                "split to choose the threshold on; add the BUCC training (or sample) files."
            )
        protocol = f"threshold on BUCC {dev}, F1 on BUCC test"
    elif has("training") and has("sample"):
        dev, test = "sample", "training"
        protocol = "threshold on BUCC sample, F1 on BUCC training (no test gold in data_dir)"
    else:
        raise FileNotFoundError(
            f"{folder} holds BUCC {lang}-en files but not the gold-annotated splits mining needs: "
            "either "
            f"{lang}-en.test.{{{lang},en,gold}} with a training or sample split, or both the "
            "sample and the "
            f"training splits with their .gold files."
        )

    kept: dict[str, str] = {}

    def read(role: str, split: str) -> tuple[list[str], list[str], np.ndarray]:
        full = load_bucc(folder, lang, "en", split)
        corpus = cap_bucc(full, max_sentences, seed)
        assert full.gold is not None and corpus.gold is not None  # has() checked the gold file
        kept[role] = (
            f"{split}: {len(corpus.source_sentences):,} of {len(full.source_sentences):,} {lang}, "
            f"{len(corpus.target_sentences):,} of {len(full.target_sentences):,} en, "
            f"{len(corpus.gold):,} of {len(full.gold):,} gold pairs"
        )
        return corpus.source_sentences, corpus.target_sentences, corpus.gold

    return {
        "dev": read("dev", dev),
        "test": read("test", test),
        "protocol": protocol,
        "pair": f"en-{lang}",
        "folder": str(folder),
        "kept": "; ".join(kept.values()),
    }
