"""Document-ordered monolingual text in several languages, never aligned (Wang et al.'s training
data), with held-out gold alignments for measuring mined pairs, and a leakage check.

Sources:

* **LibreOffice help** (:func:`lohelp_documents`): a document is one help page (HTML file). Every
  language's help has the same pages translated, so the pages are *split between languages*: each
  page goes to exactly one language's training text, or to the held-out set. No training sentence
  then has its translation anywhere in the training text; the held-out pages give gold (English,
  translation) pairs and labelled paragraphs (the help module, e.g. ``scalc``) for cross-lingual
  classification.
* **Bibles** (:func:`bible_documents`): a document is a chapter (KJV English, Reina-Valera Spanish);
  chapters are split between the languages the same way.
* **The synthetic world** (:func:`world_documents`): each language renders its *own* documents
  (independent forms, ``parallel=False``); held-out gold is a separate split rendered in parallel.
* **Your own text** (:func:`text_documents`): ``data_dir/monolingual/<lang>.txt``, one sentence a
  line in document order, documents separated by blank lines (a file without blank lines is cut into
  runs of ``doc_len`` lines); optional held-out gold from a line-aligned bitext (e.g. Europarl),
  which also serves the leakage check.
* **A planted toy** (:func:`planted_toy`): two languages that are exact relabelings of one topic
  model, sharing a few anchor words, for unit tests.

Leakage (:func:`parallel_leakage`): given the gold translation pairs of a corpus pair, count
training sentences whose translation is also in the training text of the other language. Splitting
by document leaves a few (repeated short paragraphs, recurring short sentences), so
:func:`drop_leaks` removes them from the non-English side; the check must then give 0.
Book: chapter 9 (Multilingual embeddings from monolingual text).
"""
from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from xsent_lib.data.corpora.bitext import load_bitext, load_bitext_refs
from xsent_lib.data.formats._io import iter_lines
from xsent_lib.text import WordTokenizer

#: help modules kept as the four classes of the cross-lingual classification task (RCV2 has four
#: too)
HELP_CLASSES = ("scalc", "swriter", "simpress", "sbasic")


@dataclass
class MonoDocs:
    """Sentences in reading order with their document and language, plus held-out gold and labelled
    data.

    ``gold[(a, b)] = (sents_a, sents_b)``: row ``i`` of ``a`` translates row ``i`` of ``b`` (never
    in training). ``labelled[lang] = (train_sents, train_labels, test_sents, test_labels)``:
    held-out paragraphs with a class. ``doc_names[d]`` names document ``d`` (a help page, a Bible
    chapter, or ``<lang>/<i>`` where documents have no name of their own).
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """

    name: str
    langs: tuple[str, ...]
    sentences: list[str]
    doc_ids: np.ndarray
    lang_ids: np.ndarray
    gold: dict[tuple[str, str], tuple[list[str], list[str]]] = field(default_factory=dict)
    labelled: dict[str, tuple[list[str], np.ndarray, list[str],
                              np.ndarray]] = field(default_factory=dict)
    classes: tuple[str, ...] = ()
    gold_pairs: dict[tuple[str, str], list[tuple[str, str]]] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    doc_names: list[str] = field(default_factory=list)

    def sizes(self) -> list[dict[str, object]]:
        """Sentences and documents per language. Book: chapter 9."""
        out = []
        for i, lang in enumerate(self.langs):
            sel = self.lang_ids == i
            out.append({"corpus": self.name, "language": lang, "sentences": int(sel.sum()),
                        "documents": int(len(np.unique(self.doc_ids[sel])))})
        return out

    def of(self, lang: str) -> list[str]:
        """The training sentences of ``lang``. Book: chapter 9."""
        i = self.langs.index(lang)
        return [s for s, g in zip(self.sentences, self.lang_ids) if g == i]


def _assemble(name: str,
              per_lang: Sequence[tuple[str, Sequence[list[str]] | Mapping[str, list[str]]]]
              ) -> MonoDocs:
    """Documents per language (a list, or ``{document name: sentences}``) -> one
    :class:`MonoDocs`."""
    sents, docs, lids, names = [], [], [], []
    for li, (lang, documents) in enumerate(per_lang):
        named = documents.items() if isinstance(documents, Mapping) else (
            (f"{lang}/{i}", doc) for i, doc in enumerate(documents))
        for doc_name, doc in named:
            if not doc:
                continue
            sents += doc
            docs += [len(names)] * len(doc)
            lids += [li] * len(doc)
            names.append(doc_name)
    return MonoDocs(name, tuple(lang for lang, _ in per_lang), sents, np.asarray(docs, np.int64),
                    np.asarray(lids, np.int64), doc_names=names)


def parallel_leakage(corpus: MonoDocs, pairs: Iterable[tuple[str, str]], a: str, b: str) -> int:
    """How many gold translation pairs ``(x_a, x_b)`` have ``x_a`` in ``a``'s training text *and*
    ``x_b`` in ``b``'s.

    Identical strings in both languages (numbers, menu names) are not counted: they are shared
    tokens, not translations.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if a not in corpus.langs or b not in corpus.langs:
        raise ValueError(f"{a!r} and {b!r} must be languages of the corpus {corpus.langs}.")
    sa, sb = set(corpus.of(a)), set(corpus.of(b))
    return sum(1 for x, y in pairs if x != y and x in sa and y in sb)


def drop_leaks(corpus: MonoDocs, pairs: Iterable[tuple[str, str]], a: str, b: str) -> int:
    """Remove from ``b``'s training text every sentence whose gold translation is in ``a``'s (in
    place).

    Splitting by page (or by the world's independent draws) is not enough: the help repeats short
    paragraphs on many pages ("Array of Strings"), and the world's short sentences ("it floated .")
    recur by chance. Returns how many sentences were removed.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    ia, ib = corpus.langs.index(a), corpus.langs.index(b)
    sa = {s for s, g in zip(corpus.sentences, corpus.lang_ids) if g == ia}
    bad = {y for x, y in pairs if x != y and x in sa}
    keep = np.array([not (g == ib and s in bad) for s, g in zip(corpus.sentences, corpus.lang_ids)],
                    dtype=bool)
    corpus.sentences = [s for s, k in zip(corpus.sentences, keep) if k]
    corpus.doc_ids, corpus.lang_ids = corpus.doc_ids[keep], corpus.lang_ids[keep]
    corpus.dropped[f"{a}-{b}"] = int((~keep).sum())
    return int((~keep).sum())


def _split_groups(groups: Sequence[str], n_parts: int, held_out: float,
                  seed: int) -> dict[str, int]:
    """Each distinct group -> a part in ``0..n_parts-1`` or ``-1`` (held out), at random."""
    names = sorted(set(groups))
    rng = np.random.default_rng(seed)
    rng.shuffle(names)
    n_held = int(round(held_out * len(names)))
    return {g: (-1 if i < n_held else (i - n_held) % n_parts) for i, g in enumerate(names)}


def lohelp_documents(langs: Sequence[str], *, max_sentences: int = 3000, held_out: float = 0.3,
                     n_gold: int = 1000, n_labelled: int = 1500, english_from: str | None = None,
                     seed: int = 0,
                     cache_dir: str | os.PathLike[str] | None = None) -> MonoDocs:
    """Help pages split between ``langs`` (English first), at most ``max_sentences`` paragraphs per
    language.

    Pages are shuffled once (``seed``); a share ``held_out`` of them is kept out of training for the
    gold pairs (``n_gold`` per non-English language) and the labelled paragraphs (module in
    :data:`HELP_CLASSES`; classifier training from one half of the held-out pages, test from the
    other half). ``english_from="bible"`` replaces the English training text by KJV chapters (the
    domain-mismatch run); gold and labelled data stay help.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = tuple(langs)
    if not langs or langs[0] != "en" or len(langs) < 2:
        raise ValueError("langs must start with 'en' and hold at least one other language, got "
                         f"{langs}.")
    tables = {lang: (load_bitext(f"lohelp-en-{lang}", cache_dir=cache_dir),
                     load_bitext_refs(f"lohelp-en-{lang}", cache_dir=cache_dir))
              for lang in langs[1:]}
    pages = [r.split("#")[0] for _, refs in tables.values() for r in refs]
    part = _split_groups(pages, len(langs), held_out, seed)
    held = sorted(g for g, p in part.items() if p == -1)
    cls_test_pages = set(held[::2])
    per_lang: list[tuple[str, list[list[str]]]] = []
    gold, gold_pairs, labelled = {}, {}, {}
    for li, lang in enumerate(langs):
        src_lang = langs[1] if lang == "en" else lang
        (en, tr), refs = tables[src_lang]
        side = en if lang == "en" else tr
        docs: dict[str, list[str]] = {}
        for s, ref in zip(side, refs):
            page = ref.split("#")[0]
            if part.get(page) == li:
                docs.setdefault(page, []).append(s)
        chosen: dict[str, list[str]] = {}
        n = 0
        for page in sorted(docs):
            if n >= max_sentences:
                break
            chosen[page] = docs[page][: max_sentences - n]
            n += len(chosen[page])
        per_lang.append((lang, chosen))
        rng = np.random.default_rng(seed + li)
        if lang != "en":
            held_rows = [i for i, r in enumerate(refs) if part.get(r.split("#")[0]) == -1]
            pick = rng.permutation(held_rows)[:n_gold]
            gold[("en", lang)] = ([en[i] for i in pick], [tr[i] for i in pick])
            gold_pairs[("en", lang)] = list(zip(en, tr))
        lab = [(side[i], HELP_CLASSES.index(r.split("/")[1]), r.split("#")[0] in cls_test_pages)
               for i, r in enumerate(refs) if part.get(r.split("#")[0]) == -1
               and r.split("/")[1] in HELP_CLASSES]
        rng.shuffle(lab)
        tr_rows = [x for x in lab if not x[2]][:n_labelled]
        te_rows = [x for x in lab if x[2]][:n_labelled]
        labelled[lang] = ([x[0] for x in tr_rows], np.array([x[1] for x in tr_rows]),
                          [x[0] for x in te_rows], np.array([x[1] for x in te_rows]))
    name = "LibreOffice help"
    if english_from == "bible":
        per_lang[0] = ("en", bible_chapters("en", max_sentences, cache_dir=cache_dir))
        name = "KJV Bible (en) + LibreOffice help (others)"
    elif english_from is not None:
        raise ValueError(f"english_from must be None or 'bible', got {english_from!r}.")
    out = _assemble(name, per_lang)
    out.gold, out.gold_pairs, out.labelled, out.classes = gold, gold_pairs, labelled, HELP_CLASSES
    for (a, b), pairs in gold_pairs.items():
        drop_leaks(out, pairs, a, b)
    return out


def read_documents(path: str | os.PathLike[str], *, max_sentences: int | None = None,
                   doc_len: int = 8) -> tuple[list[list[str]], bool]:
    """The documents of one sentence-per-line text file in reading order, at most ``max_sentences``
    sentences.

    Blank lines separate documents. A file without any blank line (one long stream, like a books
    corpus flattened to lines) is cut into runs of ``doc_len`` consecutive lines: a sentence's
    context is still its real neighbours, only the document boundaries are arbitrary. Returns
    ``(documents, had_blank_lines)``.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if doc_len < 1:
        raise ValueError(f"doc_len must be at least 1, got {doc_len}.")
    if max_sentences is not None and max_sentences < 1:
        raise ValueError(f"max_sentences must be positive or None, got {max_sentences}.")
    hint = ("monolingual text: one sentence a line, in document order, a blank line between "
            "documents (e.g. <data_dir>/monolingual/en.txt)")
    lines: list[str] = []  # streamed: a large corpus is read only up to max_sentences sentences
    n = 0
    for _, line in iter_lines(path, hint):
        if max_sentences is not None and n >= max_sentences:
            break
        lines.append(line.strip())
        n += bool(lines[-1])
    while lines and not lines[-1]:
        lines.pop()
    blank = "" in lines
    docs: list[list[str]] = [[]]
    for line in lines:
        if not line:
            if docs[-1]:
                docs.append([])
            continue
        if not blank and len(docs[-1]) >= doc_len:
            docs.append([])
        docs[-1].append(line)
    docs = [d for d in docs if d]
    if not docs:
        raise ValueError(f"{path} holds no sentence; it must have one sentence a line.")
    return docs, blank


def text_documents(root: str | os.PathLike[str], langs: Sequence[str], *,
                   max_sentences: int | None = None,
                   doc_len: int = 8,
                   bitext: Mapping[str, tuple[Sequence[str], Sequence[str]]] | None = None,
                   n_gold: int = 500) -> MonoDocs:
    """Each language's own text from ``root/monolingual/<lang>.txt`` (:func:`read_documents`),
    English first.

    ``bitext[lang] = (english, lang)`` (line-aligned, e.g. Europarl) gives the leakage check its
    translation pairs (``gold_pairs``; sentences whose translation is in the English training text
    are dropped from ``lang``'s side, :func:`drop_leaks`) and the held-out gold for mined-pair
    precision: up to ``n_gold`` pairs with neither side in the training text. Without a bitext there
    is no gold and no leakage check (the texts are assumed not to translate each other).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = tuple(langs)
    if len(langs) < 2 or langs[0] != "en":
        raise ValueError("langs must start with 'en' and hold at least one other language, got "
                         f"{langs}.")
    folder = Path(root) / "monolingual"
    per_lang = [(lang, read_documents(folder / f"{lang}.txt", max_sentences=max_sentences,
                                      doc_len=doc_len)[0])
                for lang in langs]
    out = _assemble(f"monolingual text ({', '.join(langs)})", per_lang)
    for lang, (en, other) in (bitext or {}).items():
        if lang not in langs[1:]:
            raise ValueError(f"bitext language {lang!r} is not one of the non-English languages "
                             f"{langs[1:]}.")
        if len(en) != len(other):
            raise ValueError(f"bitext en-{lang} is not line-aligned: {len(en)} English lines, "
                             f"{len(other)} {lang}.")
        pairs = list(zip(en, other))
        out.gold_pairs[("en", lang)] = pairs
        drop_leaks(out, pairs, "en", lang)
        seen = set(out.sentences)
        held = [(a, b) for a, b in dict.fromkeys(pairs) if a != b and a not in seen
                and b not in seen][:n_gold]
        if held:
            out.gold[("en", lang)] = ([a for a, _ in held], [b for _, b in held])
    return out


def bible_chapters(lang: str, max_sentences: int, *, part: int = 0, n_parts: int = 1, seed: int = 0,
                   cache_dir: str | os.PathLike[str] | None = None) -> dict[str, list[str]]:
    """Bible chapters of ``lang`` in ``{"en", "es"}`` as ``{"<Book>.<chapter>": verses in order}``,
    in canonical order: the chapters of part ``part`` of ``n_parts`` (chapters shuffled once), up to
    ``max_sentences`` verses.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    if lang not in ("en", "es"):
        raise ValueError(f"the Bibles are English (KJV) and Spanish (RV1909); got {lang!r}.")
    en, es = load_bitext("bible-en-es", cache_dir=cache_dir)
    refs = load_bitext_refs("bible-en-es", cache_dir=cache_dir)
    chapters = [r.rsplit(".", 1)[0] for r in refs]
    where = _split_groups(chapters, n_parts, 0.0, seed)
    side = en if lang == "en" else es
    docs: dict[str, list[str]] = {}
    for s, c in zip(side, chapters):
        if where[c] == part:
            docs.setdefault(c, []).append(s)
    out: dict[str, list[str]] = {}
    n = 0
    # insertion order is canonical order: verses are read in the file's (canonical) order
    for c in docs:
        if n >= max_sentences:
            break
        out[c] = docs[c][: max_sentences - n]
        n += len(out[c])
    return out


def bible_documents(*, max_sentences: int = 2000, n_gold: int = 500, seed: int = 0,
                    cache_dir: str | os.PathLike[str] | None = None) -> MonoDocs:
    """KJV chapters of one half of the Bible, RV1909 chapters of the other half; gold verse pairs
    from neither.

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    en, es = load_bitext("bible-en-es", cache_dir=cache_dir)
    refs = load_bitext_refs("bible-en-es", cache_dir=cache_dir)
    chapters = [r.rsplit(".", 1)[0] for r in refs]
    part = _split_groups(chapters, 2, 0.2, seed)
    per_lang = []
    for li, (lang, side) in enumerate((("en", en), ("es", es))):
        docs: dict[str, list[str]] = {}
        for s, c in zip(side, chapters):
            if part[c] == li:
                docs.setdefault(c, []).append(s)
        chosen: dict[str, list[str]] = {}
        n = 0
        for c in docs:
            if n >= max_sentences:
                break
            chosen[c] = docs[c][: max_sentences - n]
            n += len(chosen[c])
        per_lang.append((lang, chosen))
    out = _assemble("Bible (KJV / RV1909)", per_lang)
    held = np.flatnonzero(np.array([part[c] == -1 for c in chapters]))
    pick = np.random.default_rng(seed).permutation(held)[:n_gold]
    out.gold[("en", "es")] = ([en[i] for i in pick], [es[i] for i in pick])
    out.gold_pairs[("en", "es")] = list(zip(en, es))
    drop_leaks(out, out.gold_pairs[("en", "es")], "en", "es")
    return out


def world_documents(world, langs: Sequence[str], *, n_docs: int, n_sents: int,
                    n_gold_docs: int = 40) -> MonoDocs:
    """The synthetic world's documents: each language renders its own (``parallel=False``); gold =
    test-split documents rendered in parallel (English row ``i`` translates row ``i`` of every other
    language).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    langs = tuple(langs)
    per_lang = [(lang, world.documents(n_docs, n_sents, lang=lang, split="train",
                                       parallel=False).documents)
                for lang in langs]
    out = _assemble("synthetic world", per_lang)
    flat = {lang: [s for d in world.documents(n_gold_docs, n_sents, lang=lang, split="test",
                                              parallel=True).documents
                   for s in d] for lang in langs}
    for lang in langs[1:]:
        out.gold[(langs[0], lang)] = (flat[langs[0]], flat[lang])
        # every training document's translation: what parallel rendering of the same forms would
        # give
        twin = world.documents(n_docs, n_sents, lang=langs[0], split="train", parallel=False)
        out.gold_pairs[(langs[0], lang)] = list(zip(
            [s for d in twin.documents for s in d],
            world.render(twin.forms, lang)[: n_docs * n_sents]))
        drop_leaks(out, out.gold_pairs[(langs[0], lang)], langs[0], lang)
    return out


def planted_toy(*, n_docs: int = 120, n_sents: int = 6, n_topics: int = 6,
                words_per_topic: int = 12,
                n_function: int = 6, sent_len: int = 5, n_anchors: int = 8, n_gold: int = 200,
                seed: int = 0) -> MonoDocs:
    """Two languages ``a`` / ``b`` with a planted cross-lingual structure, for tests.

    One topic model: a document picks a topic; each sentence is ``sent_len`` words, content words of
    the topic and function words. Language ``b`` renders concept ``c`` as ``b<perm(c)>``, language
    ``a`` as ``a<c>``, except ``n_anchors`` concepts that are written the same in both (shared
    strings, like numbers or names). Each language draws its own documents; the gold pairs render
    the same held-out concept sequences in both.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    rng = np.random.default_rng(seed)
    n_concepts = n_topics * words_per_topic + n_function
    perm = rng.permutation(n_concepts)
    anchors = set(rng.choice(n_topics * words_per_topic,
                             size=min(n_anchors, n_topics * words_per_topic),
                             replace=False).tolist())

    def word(c: int, lang: str) -> str:
        if c in anchors:
            return f"x{c}"
        return f"a{c}" if lang == "a" else f"b{perm[c]}"

    def sentence(topic: int, r: np.random.Generator) -> list[int]:
        content = topic * words_per_topic + r.integers(0, words_per_topic, sent_len - 1)
        func = n_topics * words_per_topic + r.integers(0, n_function, 1)
        return [int(c) for c in np.concatenate([func, content])]

    def render(concepts: list[int], lang: str) -> str:
        return " ".join(word(c, lang) for c in concepts)

    per_lang = []
    for lang in ("a", "b"):
        r = np.random.default_rng([seed, ord(lang)])
        docs = []
        for _ in range(n_docs):
            t = int(r.integers(0, n_topics))
            docs.append([render(sentence(t, r), lang) for _ in range(n_sents)])
        per_lang.append((lang, docs))
    out = _assemble("planted toy", per_lang)
    r = np.random.default_rng([seed, 7])
    held = [sentence(int(r.integers(0, n_topics)), r) for _ in range(n_gold)]
    out.gold[("a", "b")] = ([render(c, "a") for c in held], [render(c, "b") for c in held])
    out.gold_pairs[("a", "b")] = list(zip(*out.gold[("a", "b")]))
    return out


def leakage_table(docs: MonoDocs) -> list[dict[str, Any]]:
    """Gold translation pairs with both sides in training, per language pair (must be 0).

    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    return [{"corpus": docs.name, "pair": f"{a}-{b}", "gold pairs checked": len(p),
             "dropped before training": docs.dropped.get(f"{a}-{b}", 0),
             "leaked": parallel_leakage(docs, p, a, b)} for (a, b), p in docs.gold_pairs.items()]


def shared_words(docs: MonoDocs) -> dict[str, list[str]]:
    """For each non-English language, the word types of its training text that are also word types
    of the English training text (as the shared vocabulary tokenises them), most frequent first:
    the identical strings mining can start from.
    Book: chapter 9 (Multilingual embeddings from monolingual text).
    """
    tok = WordTokenizer()
    counts = {lang: Counter(w for ws in tok.tokenize_batch(docs.of(lang)) for w in ws)
              for lang in docs.langs}
    en = counts[docs.langs[0]]
    return {lang: [w for w, _ in counts[lang].most_common() if w in en] for lang in docs.langs[1:]}
