"""Chapter 9 on the reader's own data: monolingual text in ``data_dir/monolingual/<lang>.txt`` (with
a Moses bitext for the leakage check and gold pairs when there is one) and the real XNLI.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from xsent_lib.data.formats import load_moses_bitext
from xsent_lib.data.formats.nli import NLIData, load_xnli, load_xnli_mt
from xsent_lib.data.monodocs import MonoDocs, text_documents
from xsent_lib.data.xnli import XNLIBenchmark


def real_languages(data_dir: str | Path, n_langs: int) -> list[str]:
    """English and up to ``n_langs - 1`` other languages (sorted codes) with
    ``data_dir/monolingual/<lang>.txt``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    folder = Path(data_dir) / "monolingual"
    found = sorted(p.stem for p in folder.glob("*.txt") if p.is_file())
    others = [lang for lang in found if lang != "en"][: max(0, n_langs - 1)]
    return (["en"] if "en" in found else []) + others


def real_documents(data_dir: str | Path, *, n_langs: int, max_sentences: int | None,
                   max_bitext: int | None = None,
                   with_bitext: bool = True) -> tuple[MonoDocs, list[str]]:
    """The user's monolingual text (:func:`~xsent_lib.data.monodocs.text_documents`) in English and
    up to ``n_langs - 1`` other languages, with a Moses bitext
    ``data_dir/bitext/<name>.{en,<lang>}`` per language when there is one (first ``max_bitext``
    lines: leakage check and held-out gold). Returns the corpus and the bitext files' prefixes read.
    Raises ``FileNotFoundError`` when English and one other language are not both there.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = real_languages(data_dir, n_langs)
    if len(langs) < 2 or langs[0] != "en":
        raise FileNotFoundError(f"monolingual text needs en.txt and one other <lang>.txt in "
                                f"{Path(data_dir) / 'monolingual'} (found {langs}); the method "
                                "learns a space shared by two or more languages.")
    bitext, read = {}, []
    for lang in langs[1:] if with_bitext else []:
        found = (Path(data_dir) / "bitext").glob(f"*.{lang}")
        prefixes = sorted(str(p)[: -len(lang) - 1] for p in found
                          if Path(str(p)[: -len(lang) - 1] + ".en").is_file())
        if prefixes:
            bi = load_moses_bitext(prefixes[0], "en", lang, max_bitext)
            bitext[lang] = (list(bi.source), list(bi.target))
            read.append(Path(prefixes[0]).name)
    docs = text_documents(data_dir, langs, max_sentences=max_sentences, bitext=bitext, n_gold=500)
    return docs, read


def _head(d: NLIData, n: int | None) -> NLIData:
    cut = slice(None) if n is None else slice(0, n)
    return NLIData(d.premises[cut], d.hypotheses[cut], d.labels[cut],
                   None if d.genres is None else d.genres[cut],
                   None if d.languages is None else d.languages[cut], d.n_skipped)


def real_xnli_bench(data_dir: str | Path, langs: Sequence[str], *, max_train: int | None,
                    max_eval: int | None) -> XNLIBenchmark:
    """Table 1 on the real XNLI: English MultiNLI training pairs from XNLI-MT (first ``max_train``),
    XNLI 1.0 dev (English, for early stopping) and test in every language of ``langs`` that XNLI has
    (first ``max_eval`` pairs of each). Raises ``ValueError`` when XNLI has none of ``langs``
    besides English.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    have = set(load_xnli(data_dir, "test").languages or ())
    targets = [lang for lang in langs if lang != "en" and lang in have]
    if not targets:
        raise ValueError(f"XNLI in {data_dir} has none of the languages {list(langs[1:])} of the "
                         f"monolingual text (it has {sorted(have)}).")
    dev = {"en": _head(load_xnli(data_dir, "dev", "en"), max_eval)}
    test = {lang: _head(load_xnli(data_dir, "test", lang), max_eval) for lang in ["en", *targets]}
    return XNLIBenchmark(load_xnli_mt(data_dir, "en", max_train), dev, test, {}, {},
                         source=f"XNLI 1.0 (test: {', '.join(['en', *targets])}) + XNLI-MT English "
                                f"train from {data_dir}")
