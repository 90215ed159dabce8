"""Cross-lingual evaluation: word translation P@k by hand, retrieval, XNLI variants."""
from __future__ import annotations

import numpy as np
import pytest

from xsent_lib.data.formats.containers import LabelledSentences, SentencePairs
from xsent_lib.eval.crosslingual import (
    CrossLingualTransferTask,
    SentenceRetrievalTask,
    sentence_retrieval,
    word_translation,
)
from xsent_lib.eval.engine import Evaluation


def test_word_translation_precision_hand_computed():
    src = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    tgt = np.array([[1.0, 0.1], [0.1, 1.0], [-1.0, 0.0], [0.7, 0.7]])
    # query 0 -> tgt 0 (gold 2: miss at 1, hit within 3? ranks: 0, 3, 1, 2 -> gold 2 is 4th)
    # query 1 -> tgt 1 (gold 1: hit); query 2 -> tgt 3 (gold {0, 3}: hit)
    pairs = np.array([[0, 2], [1, 1], [2, 0], [2, 3]])
    res = word_translation(src, tgt, pairs, methods=("nn",), ks=(1, 3))
    assert res["n_queries"] == 3
    assert res["nn"]["p@1"] == pytest.approx(200 / 3) and res["nn"]["p@3"] == pytest.approx(200 / 3)


def test_csls_beats_nn_on_a_hub_and_all_methods_report():
    rng = np.random.default_rng(0)
    c = np.eye(16)[:1]
    src = c + 0.25 * rng.standard_normal((40, 16))
    src /= np.linalg.norm(src, axis=1, keepdims=True)
    tgt = np.vstack([src + 0.25 * rng.standard_normal((40, 16)), c])
    res = word_translation(src, tgt, np.stack([np.arange(40), np.arange(40)], 1), k_csls=5)
    assert res["csls"]["p@1"] > res["nn"]["p@1"] + 10
    assert set(res) == {"nn", "isf", "csls", "n_queries"}
    assert all(res[m]["p@1"] <= res[m]["p@5"] <= res[m]["p@10"] for m in ("nn", "isf", "csls"))


def test_sentence_retrieval_both_directions_and_gold_mapping():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((30, 16))
    perm = rng.permutation(30)
    y = np.empty_like(x)
    y[perm] = x + 0.05 * rng.standard_normal(x.shape)  # source i translates target perm[i]
    res = sentence_retrieval(x, y, gold=perm)
    for direction in ("src_to_tgt", "tgt_to_src"):
        for m in ("nn", "csls", "margin"):
            assert res[direction][m]["p@1"] == 100.0
    wrong = sentence_retrieval(x, y, methods=("nn",))  # identity gold is wrong here
    assert wrong["src_to_tgt"]["nn"]["p@1"] < 20
    pool = sentence_retrieval(x[:10], y, gold=perm[:10], methods=("nn",))
    assert "tgt_to_src" not in pool and pool["src_to_tgt"]["nn"]["p@1"] == 100.0


# --- a toy bilingual world: "fr" words are English words with a prefix, and an aligned encoder ---
EN = [f"e{i}" for i in range(20)]


def _aligned_batcher(rng):
    table = {w: v for w, v in zip(EN, rng.standard_normal((20, 12)))}
    table.update({"fr_" + w: v + 0.05 * rng.standard_normal(12) for w, v in table.items()})
    return lambda p, batch: np.vstack([np.mean([table[w] for w in s], 0) for s in batch])


def _nli(rng, n, lang="en"):
    """Label 1 when the hypothesis is the premise reordered, 0 when it is unrelated."""
    pre = [list(rng.choice(EN, 3)) for _ in range(n)]
    y = rng.integers(0, 2, n)
    hyp = [list(rng.permutation(p)) if t else list(rng.choice(EN, 3)) for p, t in zip(pre, y)]
    fix = (lambda s: " ".join(s)) if lang == "en" else (lambda s: " ".join("fr_" + w for w in s))
    return SentencePairs([fix(p) for p in pre], [fix(h) for h in hyp], y)


def _to_en(texts, src, tgt):
    assert (src, tgt) == ("fr", "en")
    return [t.replace("fr_", "") for t in texts]


def _to_fr(texts, src, tgt):
    assert (src, tgt) == ("en", "fr")
    return [" ".join("fr_" + w for w in t.split()) for t in texts]


@pytest.mark.parametrize("mode", ["zero-shot", "translate-test", "translate-train"])
def test_xnli_modes_on_an_aligned_toy_encoder(mode):
    rng = np.random.default_rng(3)
    batcher = _aligned_batcher(rng)
    task = CrossLingualTransferTask(
        _nli(rng, 300), dev={"en": _nli(rng, 80)}, test={"en": _nli(rng, 100), "fr": _nli(rng, 100, "fr")},
        mode=mode, translate={"translate-test": _to_en, "translate-train": _to_fr}.get(mode))
    res = Evaluation({"mode": "fast"}, batcher).eval(task)
    assert set(res["acc"]) == {"en", "fr"} and res["mode"] == mode
    assert res["acc"]["en"] > 75 and res["acc"]["fr"] > 75
    assert res["avg"] == pytest.approx(np.mean(list(res["acc"].values())))


def test_document_transfer_zero_shot_and_translate_checks():
    rng = np.random.default_rng(4)

    def docs(n, lang):
        y = rng.integers(0, 2, n)
        words = [[EN[c]] + list(rng.choice(EN[2:], 4)) for c in y]
        pre = "" if lang == "en" else "fr_"
        return LabelledSentences([" ".join(pre + w for w in s) for s in words], y)

    test = {"en": docs(80, "en"), "fr": docs(80, "fr")}
    test["fr"].labels = test["en"].labels.copy()
    test["fr"].sentences = [" ".join("fr_" + w for w in s.split()) for s in test["en"].sentences]
    task = CrossLingualTransferTask(docs(200, "en"), {"en": docs(60, "en")}, test, name="MLDoc")
    res = Evaluation({"mode": "fast"}, _aligned_batcher(rng)).eval(task)
    assert res["acc"]["en"] > 80 and abs(res["acc"]["fr"] - res["acc"]["en"]) <= 5  # the aligned encoder transfers
    with pytest.raises(ValueError, match="translate"):
        CrossLingualTransferTask(docs(5, "en"), {"en": docs(5, "en")}, {"fr": docs(5, "fr")}, mode="translate-test")
    with pytest.raises(ValueError, match="dev set for every test language"):
        CrossLingualTransferTask(docs(5, "en"), {"en": docs(5, "en")}, {"fr": docs(5, "fr")}, select_on="target")


def test_sentence_retrieval_task_through_engine():
    rng = np.random.default_rng(5)
    batcher = _aligned_batcher(rng)
    en = [" ".join(rng.choice(EN, 4)) for _ in range(25)]
    fr = [" ".join("fr_" + w for w in s.split()) for s in en]
    res = Evaluation({}, batcher).eval(SentenceRetrievalTask(en, fr, name="toy-retrieval"))
    assert res["src_to_tgt"]["nn"]["p@1"] > 90 and res["tgt_to_src"]["csls"]["p@1"] > 90
