"""Chapter 4's full plan: the thesis's encoder sizes and the real training corpora wired to data_dir."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.probing_sets import probing_subset
from xsent_lib.data.sources import REAL_DATA, DataSources
from xsent_lib.encoders.probing import make_encoder
from xsent_lib.recipes import probing as P
from xsent_lib.train import probing as T
from xsent_lib.train.seq2seq import Seq2SeqCorpus


def test_full_plan_has_the_thesis_sizes():
    plan = P.PLANS["full"]
    s = plan.settings
    assert s.lstm_layers == 2 and s.decoder_layers == 2 and s.decoder_dim == 512  # thesis: 2 x 512
    assert plan.dims["bilstm-max"] == plan.dims["bilstm-last"] == 1024  # 512 units per direction
    assert s.conv_layers == 8 and plan.dims["gated-convnet"] == 512
    assert plan.n_train == 500_000 and plan.probe_sizes == (100_000, 10_000, 10_000)
    assert set(T.REAL_TRAINING_DATA) == set(plan.tasks) - {"seq2tree"}, "every real-able task has its corpus"
    assert all(name in REAL_DATA for name, _ in T.REAL_TRAINING_DATA.values())
    assert P.PLANS["smoke"].settings.lstm_layers == 1 and P.PLANS["book"].settings.lstm_layers == 1


def test_two_layer_encoder_is_built(tiny_words):
    enc = make_encoder("bilstm-max", tiny_words, 16, lstm_layers=2)
    assert enc.num_layers == 2 and enc.output_dim == 16
    assert make_encoder("bilstm-last", tiny_words, 16).num_layers == 1


@pytest.fixture
def tiny_words():
    from xsent_lib.data.word_setup import build_word_setup

    return build_word_setup(["the cat sat on the mat .", "a dog ran ."], None, dim=8, seed=0)


@pytest.fixture
def corpora(tmp_path: Path) -> Path:
    root = tmp_path / "papers"
    (root / "snli_1.0").mkdir(parents=True)
    labels = ("entailment", "neutral", "contradiction")
    for split, n in (("train", 30), ("dev", 9), ("test", 9)):
        rows = [json.dumps({"gold_label": labels[i % 3], "sentence1": f"a man {i} walks .",
                            "sentence2": f"a person {i} moves ."}) for i in range(n)]
        (root / "snli_1.0" / f"snli_1.0_{split}.jsonl").write_text("\n".join(rows) + "\n")
    (root / "bitext").mkdir()
    (root / "bitext" / "europarl-v7.fr-en.en").write_text("".join(f"the house {i} .\n" for i in range(40)))
    (root / "bitext" / "europarl-v7.fr-en.fr").write_text("".join(f"la maison {i} .\n" for i in range(40)))
    (root / "monolingual").mkdir()
    (root / "monolingual" / "en.txt").write_text("".join(f"sentence number {i} .\n" for i in range(40)))
    return root


def test_real_training_corpora_are_read(corpora: Path):
    nli = T.real_training_corpus(corpora, "nli", 20, 5)
    assert isinstance(nli, NLICorpus) and (len(nli.train), len(nli.dev), len(nli.test)) == (20, 5, 5)
    nmt = T.real_training_corpus(corpora, "nmt-fr", 20, 5)
    assert isinstance(nmt, Seq2SeqCorpus) and len(nmt.source["train"]) == 20
    assert nmt.source["dev"][0] == "the house 20 ." and nmt.target["dev"][0] == "la maison 20 ."
    ae = T.real_training_corpus(corpora, "autoencoder", 10, 3)
    assert ae.source["train"] == ae.target["train"]
    st = T.real_training_corpus(corpora, "skipthought", 10, 3)
    assert st.target["train"][0] == st.source["train"][1], "SkipThought predicts the next sentence"
    full = T.real_training_corpus(corpora, "nmt-fr", None, None)  # the full plan reads everything
    assert len(full.source["train"]) == 38 and len(full.source["dev"]) == 1
    with pytest.raises(FileNotFoundError, match="europarl-v7.de-en"):
        T.real_training_corpus(corpora, "nmt-de", 10, 3)
    with pytest.raises(ValueError, match="no real corpus"):
        T.real_training_corpus(corpora, "seq2tree", 10, 3)


def test_real_corpora_are_found_by_the_chapter_mechanism(corpora: Path):
    data = DataSources(corpora, "full", ("snli", "bitext", "monolingual"))
    assert all(data.available(n) for n in ("snli", "bitext", "monolingual"))
    assert data.limit(book=P.PLANS["book"].n_train) is None  # full: everything


def test_probing_subset_keeps_seeded_split_sizes():
    import numpy as np

    from xsent_lib.data.formats.containers import ClassificationTask, LabelledSentences

    task = ClassificationTask("Tense", {s: LabelledSentences([f"{s} {i}" for i in range(50)], np.arange(50) % 2)
                                        for s in ("train", "dev", "test")}, ("past", "present"))
    cut = probing_subset(task, (20, 5, None), seed=1)
    assert [len(cut.splits[s].labels) for s in ("train", "dev", "test")] == [20, 5, 50]
    again = probing_subset(task, (20, 5, None), seed=1)
    assert cut.splits["train"].sentences == again.splits["train"].sentences
