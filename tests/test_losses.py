"""Tests of the sentence-level losses: hand-computed values, brute-force equivalences, clear errors."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from xsent_lib.align.mining import build_coherence_examples, mine_coherent_pairs
from xsent_lib.losses.alignment import alignment_loss, ranking_loss, sample_other_indices
from xsent_lib.losses.context import (
    build_context_examples,
    coherence_regression_loss,
    concat_windows,
    context_classification_loss,
    context_windows,
    sample_same_group,
)
from xsent_lib.losses.contrastive import info_nce_loss
from xsent_lib.losses.margin import (
    margin_loss,
    megabatch_margin_loss,
    megabatch_plan,
    megabatch_size,
    mine_hardest_negatives,
    sample_random_negatives,
)
from xsent_lib.losses.nli import nli_accuracy, nli_loss
from xsent_lib.losses.transfer import transfer_loss


def t(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


# ---------------------------------------------------------------- NLI
def test_nli_loss_hand_values_and_ignore_index():
    logits = t([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [5.0, 1.0, 1.0]])
    labels = torch.tensor([1, 0, -100])
    expected = (math.log(3) + (math.log(math.exp(2) + 2) - 2)) / 2
    assert nli_loss(logits, labels).item() == pytest.approx(expected, rel=1e-12)
    assert nli_accuracy(logits, labels) == pytest.approx(0.5)  # row 0 argmax is 0 (tie -> first), row 1 right


def test_nli_errors():
    with pytest.raises(ValueError, match="labels must lie"):
        nli_loss(t([[0.0, 1.0, 2.0]]), torch.tensor([3]))
    with pytest.raises(ValueError, match="rows"):
        nli_loss(t([[0.0, 1.0, 2.0]]), torch.tensor([0, 1]))
    with pytest.raises(ValueError, match="ignore_index"):
        nli_loss(t([[0.0, 1.0, 2.0]]), torch.tensor([-100]))
    with pytest.raises(ValueError, match="integer"):
        nli_loss(t([[0.0, 1.0, 2.0]]), t([1.0]))


# ---------------------------------------------------------------- L_align and ranking
def test_alignment_loss_hand_value():
    x, y, x_c, y_c = t([[0, 0]]), t([[3, 4]]), t([[0, 4]]), t([[0, 1]])
    # dist(x,y)=5, dist(x_c,y)=3, dist(x,y_c)=1  ->  5 - 0.25 * (3 + 1) = 4
    assert alignment_loss(x, y, x_c=x_c, y_c=y_c).item() == pytest.approx(4.0)
    assert alignment_loss(x, y, lam=0.0).item() == pytest.approx(5.0)
    # ranking, margin 1: max(0, 1 - 1 + 5) + max(0, 1 - 3 + 5) = 5 + 3
    assert ranking_loss(x, y, x_c=x_c, y_c=y_c, margin=1.0).item() == pytest.approx(8.0)


def test_alignment_loss_cosine_and_custom_distance():
    x, y = t([[1, 0], [0, 2]]), t([[0, 1], [0, 1]])
    assert alignment_loss(x, y, lam=0.0, distance="cosine", reduction="none").tolist() == pytest.approx([1.0, 0.0])
    manhattan = lambda a, b: (a - b).abs().sum(1)  # noqa: E731
    assert alignment_loss(x, y, lam=0.0, distance=manhattan, reduction="sum").item() == pytest.approx(2.0 + 1.0)


def test_sampled_negatives_are_other_rows_and_seeded():
    idx = sample_other_indices(7, torch.Generator().manual_seed(0))
    assert not (idx == torch.arange(7)).any()
    assert torch.equal(idx, sample_other_indices(7, torch.Generator().manual_seed(0)))
    draws = torch.stack([sample_other_indices(4, torch.Generator().manual_seed(s)) for s in range(200)])
    assert set(draws[:, 0].tolist()) == {1, 2, 3}  # uniform over the other rows, never row 0 itself

    x, y = torch.randn(6, 3, dtype=torch.float64), torch.randn(6, 3, dtype=torch.float64)
    got = alignment_loss(x, y, generator=torch.Generator().manual_seed(3))
    g = torch.Generator().manual_seed(3)
    ix, iy = sample_other_indices(6, g), sample_other_indices(6, g)
    assert got.item() == pytest.approx(alignment_loss(x, y, x_c=x[ix], y_c=y[iy]).item(), rel=1e-12)


def test_alignment_errors():
    with pytest.raises(ValueError, match="same shape"):
        alignment_loss(torch.zeros(3, 2), torch.zeros(3, 4))
    with pytest.raises(TypeError, match="torch.Tensor"):
        alignment_loss(np.zeros((3, 2)), torch.zeros(3, 2))
    with pytest.raises(ValueError, match="at least 2"):
        alignment_loss(torch.zeros(1, 2), torch.zeros(1, 2))
    with pytest.raises(ValueError, match="distance"):
        alignment_loss(torch.zeros(3, 2), torch.zeros(3, 2), distance="l3")


# ---------------------------------------------------------------- Wieting margin + mega-batches
def test_megabatch_schedule():
    assert [megabatch_size(n) for n in (0, 149, 150, 299, 300, 59 * 150, 10**6)] == [1, 1, 2, 2, 3, 60, 60]
    assert megabatch_size(7, anneal_rate=None) == 60
    assert megabatch_size(np.array([0, 4, 8]), anneal_rate=4, max_size=2).tolist() == [1, 2, 2]
    plan = megabatch_plan(5, max_size=3, anneal_rate=2)
    assert plan == [range(0, 1), range(1, 2), range(2, 4), range(4, 5)]
    assert sum(len(g) for g in megabatch_plan(1000)) == 1000
    with pytest.raises(ValueError):
        megabatch_size(-1)


def test_margin_hand_values():
    s = t([[1, 0], [0, 1], [1, 2]])
    tg = t([[1, 0], [0, 1], [2, 1]])
    mined = mine_hardest_negatives(s, tg)
    assert mined.target_idx.tolist() == [2, 2, 1]
    r5 = math.sqrt(5)
    expected = [0.4 - 1 + 2 / r5, max(0.0, 0.4 - 1 + 1 / r5), 0.4 - 4 / 5 + 2 / r5]
    per_row = megabatch_margin_loss(s, tg, reduction="none")
    assert per_row.tolist() == pytest.approx(expected, abs=1e-12)
    assert margin_loss(s, tg, tg[[2, 2, 1]]).item() == pytest.approx(sum(expected) / 3, abs=1e-12)


def test_duplicates_are_never_negatives():
    s = t([[1, 0], [0, 1], [1, 0.1], [1, 0]])  # pair 3 repeats pair 0's source
    tg = t([[1, 0], [1, 0], [0, 1], [1, 0.05]])  # pair 1 repeats pair 0's target
    mined = mine_hardest_negatives(s, tg, symmetric=True)
    assert mined.target_idx[0].item() == 2  # not 1 (duplicate target) nor 3 (translation of a duplicate source)
    assert mined.target_idx[1].item() == 2  # pair 1's target equals pair 0's -> target 0 is banned
    keys = mine_hardest_negatives(s, tg, src_keys=np.array([0, 1, 2, 3]), tgt_keys=np.array([0, 1, 2, 3]))
    assert keys.target_idx[0].item() == 1  # with distinct keys, the bit-identical copy is allowed again
    with pytest.raises(ValueError, match="no valid"):
        mine_hardest_negatives(t([[1, 0], [1, 0]]), t([[0, 1], [0, 1]]))


def naive_hardest(src: np.ndarray, tgt: np.ndarray, pool: str, symmetric: bool):
    """Reference: explicit double loop over pairs and candidates (tests only)."""

    def cos(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    m = len(src)
    both = [(j, tgt[j]) for j in range(m)] + [(j, src[j]) for j in range(m)]

    def best(query, i, candidates):
        best_pos, best_v = -1, -np.inf
        for pos, (j, row) in enumerate(candidates):
            if np.array_equal(src[j], src[i]) or np.array_equal(tgt[j], tgt[i]):
                continue  # the pair itself, or a pair that duplicates it
            if pool == "both" and np.array_equal(row, query):
                continue  # a copy of the query sentence
            if cos(query, row) > best_v:
                best_pos, best_v = pos, cos(query, row)
        return best_pos

    for_src = both if pool == "both" else [(j, tgt[j]) for j in range(m)]
    for_tgt = both if pool == "both" else [(j, src[j]) for j in range(m)]
    tgt_idx = [best(src[i], i, for_src) for i in range(m)]
    src_idx = [best(tgt[i], i, for_tgt) for i in range(m)] if symmetric else None
    return tgt_idx, src_idx


@pytest.mark.parametrize("pool", ["target", "both"])
@pytest.mark.parametrize("symmetric", [False, True])
def test_vectorised_miner_equals_naive_loop(pool, symmetric):
    rng = np.random.default_rng(0)
    src, tgt = rng.normal(size=(30, 5)), rng.normal(size=(30, 5))
    src[7], tgt[12], src[20] = src[3], tgt[4], tgt[9]  # duplicates within and across sides
    tgt[25] = src[25]  # a pair whose target equals its own source (monolingual copy)
    ref_t, ref_s = naive_hardest(src, tgt, pool, symmetric)
    mined = mine_hardest_negatives(torch.from_numpy(src), torch.from_numpy(tgt), pool=pool, symmetric=symmetric)
    assert mined.target_idx.tolist() == ref_t
    if symmetric:
        assert mined.source_idx.tolist() == ref_s

    # loss from the naive indices, hinge written out by hand
    pool_t = tgt if pool == "target" else np.vstack([tgt, src])
    pool_s = src if pool == "target" else np.vstack([tgt, src])
    cos = lambda a, b: float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))  # noqa: E731
    losses = []
    for i in range(30):
        v = max(0.0, 0.4 - cos(src[i], tgt[i]) + cos(src[i], pool_t[ref_t[i]]))
        if symmetric:
            v += max(0.0, 0.4 - cos(src[i], tgt[i]) + cos(pool_s[ref_s[i]], tgt[i]))
        losses.append(v)
    got = megabatch_margin_loss(torch.from_numpy(src), torch.from_numpy(tgt), pool=pool, symmetric=symmetric)
    assert got.item() == pytest.approx(np.mean(losses), abs=1e-12)


def test_random_negatives_are_other_pairs_seeded_and_uniform():
    src_keys = np.array([0, 1, 2, 3, 4, 1, 6, 7])  # pair 5 repeats pair 1's source
    tgt_keys = np.array([0, 1, 2, 3, 4, 5, 6, 2])  # pair 7 repeats pair 2's target
    banned = {i: {i} for i in range(8)} | {1: {1, 5}, 5: {1, 5}, 2: {2, 7}, 7: {2, 7}}
    draws = torch.stack([sample_random_negatives(src_keys, tgt_keys, generator=torch.Generator().manual_seed(s))
                         for s in range(4000)])
    assert draws.shape == (4000, 8) and ((draws >= 0) & (draws < 8)).all()  # an index into the batch
    for i in range(8):
        counts = np.bincount(draws[:, i].numpy(), minlength=8)
        assert all(counts[j] == 0 for j in banned[i])  # never its own target nor a duplicate pair's
        allowed = counts[[j for j in range(8) if j not in banned[i]]]
        expected = 4000 / len(allowed)  # uniform over the allowed pairs: every count within 5 standard errors
        assert np.all(np.abs(allowed - expected) < 5 * np.sqrt(expected)), (i, counts)
    same = [sample_random_negatives(src_keys, tgt_keys, generator=torch.Generator().manual_seed(9)) for _ in range(2)]
    assert torch.equal(*same)  # the draw follows the seed
    assert not all(torch.equal(same[0], d) for d in draws[:20])  # and changes with it
    with pytest.raises(ValueError, match="no valid"):
        sample_random_negatives(np.array([0, 0]), np.array([1, 2]))
    with pytest.raises(ValueError, match="integer"):
        sample_random_negatives(np.array([0.0, 1.0]), np.array([0, 1]))
    with pytest.raises(ValueError, match="at least 2"):
        sample_random_negatives(np.array([0]), np.array([0]))


def test_margin_errors():
    with pytest.raises(ValueError, match="pool"):
        mine_hardest_negatives(torch.zeros(3, 2), torch.zeros(3, 2), pool="all")
    with pytest.raises(ValueError, match="same shape"):
        margin_loss(torch.zeros(3, 2), torch.zeros(3, 2), torch.zeros(2, 2))
    with pytest.raises(ValueError, match="shape"):
        mine_hardest_negatives(torch.randn(3, 2), torch.randn(3, 2), tgt_keys=np.arange(4))


# ---------------------------------------------------------------- transfer
def test_transfer_hand_values_and_teacher_detached():
    student = t([[1, 2], [1, 0]]).requires_grad_(True)
    teacher = t([[0, 4], [0, 1]]).requires_grad_(True)
    assert transfer_loss(student, teacher, kind="l1", reduction="none").tolist() == pytest.approx([3.0, 2.0])
    assert transfer_loss(student, teacher, kind="l2", reduction="none").tolist() == pytest.approx([5.0, 2.0])
    cos0 = 8 / (math.sqrt(5) * 4)
    assert transfer_loss(student, teacher, kind="cosine", reduction="none").tolist() == pytest.approx([1 - cos0, 1.0])
    transfer_loss(student, teacher, kind="l2").backward()
    assert teacher.grad is None and student.grad is not None
    with pytest.raises(ValueError, match="kind"):
        transfer_loss(student, teacher, kind="huber")
    with pytest.raises(ValueError, match="same shape"):
        transfer_loss(student, teacher[:, :1])


# ---------------------------------------------------------------- InfoNCE
@pytest.mark.parametrize("symmetric", [False, True])
def test_info_nce_equals_cross_entropy_on_similarity_matrix(symmetric):
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(6, 4)), rng.normal(size=(6, 4))
    xn = x / np.linalg.norm(x, axis=1, keepdims=True)
    yn = y / np.linalg.norm(y, axis=1, keepdims=True)
    s = xn @ yn.T / 0.1

    def ce(m):
        return np.mean(np.log(np.exp(m).sum(1)) - np.diag(m))

    expected = (ce(s) + ce(s.T)) / 2 if symmetric else ce(s)
    got = info_nce_loss(torch.from_numpy(x), torch.from_numpy(y), temperature=0.1, symmetric=symmetric)
    assert got.item() == pytest.approx(expected, rel=1e-10)


def test_info_nce_errors():
    with pytest.raises(ValueError, match="temperature"):
        info_nce_loss(torch.randn(3, 2), torch.randn(3, 2), temperature=0.0)
    with pytest.raises(ValueError, match="at least 2"):
        info_nce_loss(torch.randn(1, 2), torch.randn(1, 2))


# ---------------------------------------------------------------- Wang et al.: context and coherence
def test_context_windows_stay_inside_documents():
    doc_ids = np.array([0, 0, 0, 1, 1, 2])
    win = context_windows(doc_ids, k=1)
    assert win.tolist() == [[-1, 0, 1], [0, 1, 2], [1, 2, -1], [-1, 3, 4], [3, 4, -1], [-1, 5, -1]]
    assert context_windows(doc_ids, k=2, centers=np.array([1])).tolist() == [[-1, 0, 1, 2, -1]]


def test_sample_same_group_never_self_and_uniform():
    groups = np.array([0, 1, 0, 0, 1, 2, 2])
    centers = np.repeat(np.arange(7), 300)
    picks = sample_same_group(centers, groups, np.random.default_rng(0))
    assert np.all(picks != centers) and np.all(groups[picks] == groups[centers])
    counts = np.bincount(picks[centers == 0], minlength=7)
    assert counts[2] > 100 and counts[3] > 100 and counts[[0, 1, 4, 5, 6]].sum() == 0
    with pytest.raises(ValueError, match="single sentence"):
        sample_same_group(np.array([0]), np.array([0, 1]), np.random.default_rng(0))


def test_build_context_examples_alternate_true_and_random_centres():
    doc_ids, lang_ids = np.array([0, 0, 0, 1, 1, 1]), np.array([0, 0, 0, 1, 1, 1])
    ex = build_context_examples(doc_ids, lang_ids, k=1, seed=0)
    assert ex.targets.tolist() == [1.0, 0.0] * 6
    pos, neg = ex.windows[0::2], ex.windows[1::2]
    assert np.array_equal(pos[:, [0, 2]], neg[:, [0, 2]]) and np.array_equal(pos[:, 1], np.arange(6))
    assert np.all(neg[:, 1] != pos[:, 1]) and np.all(lang_ids[neg[:, 1]] == lang_ids[pos[:, 1]])


def test_concat_windows_equals_python_concatenation():
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 6, size=9)
    tokens = np.zeros((9, 5), dtype=np.int64)
    sentences = [list(rng.integers(1, 50, size=n)) for n in lengths]
    for i, s in enumerate(sentences):
        tokens[i, : len(s)] = s
    windows = context_windows(np.array([0] * 5 + [1] * 4), k=1)
    windows[2, 1] = 7  # a swapped-in sentence from the other document
    ids, out_len = concat_windows(torch.from_numpy(tokens), torch.from_numpy(lengths), windows, maxlen=8, pad_id=0)
    for row, win in enumerate(windows):
        joined = [tok for j in win if j >= 0 for tok in sentences[j]][:8]
        assert out_len[row].item() == len(joined)
        assert ids[row].tolist() == joined + [0] * (8 - len(joined))
    with pytest.raises(ValueError, match="windows"):
        concat_windows(torch.from_numpy(tokens), torch.from_numpy(lengths), np.array([[9]]))


def test_context_and_coherence_losses_hand_values():
    logits, labels = torch.tensor([0.0, math.log(3.0)]), torch.tensor([1.0, 0.0])
    expected = (math.log(2.0) + math.log(4.0)) / 2  # -log(1/2), -log(1 - 3/4)
    assert context_classification_loss(logits[:, None], labels).item() == pytest.approx(expected)
    with pytest.raises(ValueError, match="0 .random sentence. or 1"):
        context_classification_loss(logits, torch.tensor([0.5, 1.0]))
    pred = torch.tensor([[0.5], [0.0]], requires_grad=True)
    target = torch.tensor([0.25, 1.0])
    assert coherence_regression_loss(pred, target).item() == pytest.approx((0.0625 + 1.0) / 2)
    with pytest.raises(ValueError, match="predicted"):
        coherence_regression_loss(pred, target[:1])


def test_mine_coherent_pairs_finds_planted_translations():
    rng = np.random.default_rng(0)
    en = rng.normal(size=(200, 16))
    zh = en + 0.1 * rng.normal(size=en.shape)  # sentence i of "zh" translates sentence i of "en"
    emb = np.vstack([en, zh])
    pairs = mine_coherent_pairs(emb, m=200, n_pairs=50, query_pool=np.arange(200),
                                candidate_pool=np.arange(200, 400), seed=0)
    assert np.array_equal(pairs.partner, pairs.query + 200)
    assert np.all(np.diff(pairs.csls) <= 0)  # best pairs first
    u = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    assert pairs.cosine == pytest.approx(np.sum(u[pairs.query] * u[pairs.partner], 1), abs=1e-5)
    ex = build_coherence_examples(pairs, np.arange(400) // 10, k=1)
    assert ex.windows.shape == (100, 3) and np.array_equal(ex.targets[0::2], pairs.cosine)
    assert np.array_equal(ex.windows[0::2, 1], pairs.partner) and np.array_equal(ex.windows[1::2, 1], pairs.query)
    assert np.array_equal(ex.windows[0::2, 0], np.where(pairs.query % 10 > 0, pairs.query - 1, -1))
