"""LM objectives (CLM/MLM/TLM, language sampling), sequence cross-entropy, and the seq2seq decoder pieces."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from xsent_lib.encoders.decoder import (
    LSTMDecoder,
    Seq2Seq,
    linearize_tree,
    next_sentence_pairs,
    sdae_noise,
    teacher_forcing_pair,
)
from xsent_lib.encoders.transformer import TransformerSentenceEncoder
from xsent_lib.losses.lm import (
    clm_loss,
    clm_targets,
    frequency_smoothed_weights,
    language_sampling_probs,
    mlm_loss,
    mlm_mask,
    sample_languages,
    tlm_concat,
    token_streams,
)
from xsent_lib.losses.seq2seq import IGNORE_INDEX, perplexity, sequence_cross_entropy, sequence_nll

PAD, UNK, BOS, EOS, MASK = 0, 1, 2, 3, 4
SPECIALS = (PAD, UNK, BOS, EOS, MASK)
V = 60


def random_batch(batch: int, width: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(3, width + 1, (batch,), generator=g)
    ids = torch.randint(5, V, (batch, width), generator=g)
    ids[:, 0] = BOS
    ids[torch.arange(batch), lengths - 1] = EOS
    ids[torch.arange(width)[None, :] >= lengths[:, None]] = PAD
    return ids, lengths


# ---------------------------------------------------------------- CLM


def test_clm_targets_shift_left_and_ignore_padding() -> None:
    ids = torch.tensor([[2, 7, 8, 3], [2, 9, 3, 0]])
    got = clm_targets(ids, torch.tensor([4, 3]))
    assert got.tolist() == [[7, 8, 3, IGNORE_INDEX], [9, 3, IGNORE_INDEX, IGNORE_INDEX]]


def test_clm_loss_equals_manual_cross_entropy() -> None:
    torch.manual_seed(0)
    enc = TransformerSentenceEncoder(V, d_model=16, n_heads=2, n_layers=1, dropout=0.0).eval()
    ids, lens = random_batch(4, 7, seed=1)
    logits = enc.lm_logits(enc.hidden_states(ids, lens, causal=True))
    t = clm_targets(ids, lens)
    keep = t != IGNORE_INDEX
    manual = -torch.log_softmax(logits[keep], -1).gather(1, t[keep, None]).mean()
    torch.testing.assert_close(clm_loss(enc, ids, lens), manual)


# ---------------------------------------------------------------- MLM


def test_mlm_masking_statistics_on_a_large_batch() -> None:
    ids, lens = random_batch(2048, 40, seed=0)
    g = torch.Generator().manual_seed(123)
    m = mlm_mask(ids, lens, vocab_size=V, mask_id=MASK, special_ids=SPECIALS, generator=g)
    real = torch.arange(40)[None, :] < lens[:, None]
    eligible = real & (ids > MASK)
    n_sel = int(m.selected.sum())
    assert n_sel == round(0.15 * int(eligible.sum()))
    assert not (m.selected & ~eligible).any(), "padding and special tokens are never selected"
    how = m.replaced_by[m.selected]
    frac = torch.bincount(how, minlength=3).double() / n_sel
    assert abs(frac[0] - 0.8) < 0.02 and abs(frac[1] - 0.1) < 0.015 and abs(frac[2] - 0.1) < 0.015
    assert torch.equal(m.inputs[~m.selected], ids[~m.selected])
    assert torch.equal(m.targets[m.selected], ids[m.selected])
    assert (m.targets[~m.selected] == IGNORE_INDEX).all()
    assert (m.inputs[m.replaced_by == 0] == MASK).all()
    assert torch.equal(m.inputs[m.replaced_by == 2], ids[m.replaced_by == 2])
    randoms = m.inputs[m.replaced_by == 1]
    assert (randoms > MASK).all(), "random replacements are ordinary tokens"
    assert len(torch.unique(randoms)) > 40, "random replacements spread over the vocabulary"


def test_mlm_is_seeded() -> None:
    ids, lens = random_batch(16, 10, seed=2)

    def draw(seed: int) -> torch.Tensor:
        g = torch.Generator().manual_seed(seed)
        return mlm_mask(ids, lens, vocab_size=V, mask_id=MASK, special_ids=SPECIALS, generator=g).inputs

    assert torch.equal(draw(5), draw(5))
    assert not torch.equal(draw(5), draw(6))


def test_frequency_smoothed_weights_and_rare_tokens_picked_more() -> None:
    w = frequency_smoothed_weights([7, 4, 100, 0], exponent=0.5, special_ids=[0])
    torch.testing.assert_close(w, torch.tensor([0.0, 0.5, 0.1, 1.0]))
    counts = np.ones(V, dtype=np.int64)
    counts[10], counts[11] = 10_000, 100  # weights 0.01 vs 0.1
    ids = torch.tensor([10, 11] * 500).view(10, 100)
    lens = torch.full((10,), 100)
    weights = frequency_smoothed_weights(counts, special_ids=SPECIALS)
    g = torch.Generator().manual_seed(0)
    sel = mlm_mask(ids, lens, vocab_size=V, mask_id=MASK, special_ids=SPECIALS, token_weights=weights, generator=g).selected
    rate_frequent = sel[ids == 10].float().mean()
    rate_rare = sel[ids == 11].float().mean()
    assert int(sel.sum()) == 150
    assert rate_rare > 3 * rate_frequent


def test_mlm_rejects_batches_with_nothing_to_mask() -> None:
    ids = torch.tensor([[BOS, EOS, PAD]])
    with pytest.raises(ValueError, match="No token"):
        mlm_mask(ids, torch.tensor([2]), vocab_size=V, mask_id=MASK, special_ids=SPECIALS)
    with pytest.raises(ValueError, match="vocab_size"):
        mlm_mask(torch.tensor([[V + 1]]), torch.tensor([1]), vocab_size=V, mask_id=MASK)


# ---------------------------------------------------------------- TLM


def test_tlm_concat_resets_positions_and_tags_languages() -> None:
    src = torch.tensor([[5, 6, 7], [8, 9, 0]])
    tgt = torch.tensor([[10, 11], [12, 0]])
    pair = tlm_concat(src, torch.tensor([3, 2]), tgt, torch.tensor([2, 1]), src_lang=0, tgt_lang=1)
    assert pair.token_ids.tolist() == [[5, 6, 7, 10, 11], [8, 9, 12, 0, 0]]
    assert pair.lengths.tolist() == [5, 3]
    assert pair.positions.tolist() == [[0, 1, 2, 0, 1], [0, 1, 0, 0, 0]]
    assert pair.langs.tolist() == [[0, 0, 0, 1, 1], [0, 0, 1, 0, 0]]
    assert pair.split.tolist() == [3, 2]
    per_row = tlm_concat(src, torch.tensor([3, 2]), tgt, torch.tensor([2, 1]), src_lang=torch.tensor([2, 1]), tgt_lang=3)
    assert per_row.langs.tolist() == [[2, 2, 2, 3, 3], [1, 1, 3, 1, 1]]


def test_tlm_masks_both_sides_and_trains_through_mlm_loss() -> None:
    src, src_len = random_batch(64, 8, seed=3)
    tgt, tgt_len = random_batch(64, 6, seed=4)
    pair = tlm_concat(src, src_len, tgt, tgt_len, src_lang=0, tgt_lang=1)
    g = torch.Generator().manual_seed(0)
    m = mlm_mask(pair.token_ids, pair.lengths, vocab_size=V, mask_id=MASK, special_ids=SPECIALS, generator=g)
    cols = torch.arange(pair.token_ids.shape[1])[None, :]
    in_src = cols < pair.split[:, None]
    assert (m.selected & in_src).any() and (m.selected & ~in_src).any()
    torch.manual_seed(0)
    enc = TransformerSentenceEncoder(V, d_model=16, n_heads=2, n_layers=1, n_langs=2, dropout=0.0)
    loss = mlm_loss(enc, m, pair.lengths, langs=pair.langs, positions=pair.positions)
    assert math.isfinite(loss.item()) and loss.item() > 0
    loss.backward()
    assert enc.language_embedding.weight.grad[1].abs().sum() > 0


def test_token_streams_cut_the_corpus() -> None:
    s = token_streams(torch.arange(10), stream_len=4)
    assert s.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    with pytest.raises(ValueError, match="fewer than one stream"):
        token_streams(torch.arange(3), stream_len=4)


# ---------------------------------------------------------------- language sampling


def test_language_sampling_probs_hand_checked() -> None:
    np.testing.assert_allclose(language_sampling_probs([900, 100], alpha=0.5), [0.75, 0.25])
    np.testing.assert_allclose(language_sampling_probs([900, 100], alpha=1.0), [0.9, 0.1])
    np.testing.assert_allclose(language_sampling_probs([5, 50, 0], alpha=0.0), [0.5, 0.5, 0.0])
    p = np.array([0.7, 0.2, 0.1])
    np.testing.assert_allclose(language_sampling_probs([70, 20, 10], alpha=0.7), p**0.7 / (p**0.7).sum())
    q = language_sampling_probs([70, 20, 10], alpha=0.7)
    assert q[2] > 0.1 and q[0] < 0.7, "alpha < 1 upsamples the low-resource language"
    with pytest.raises(ValueError, match="counts"):
        language_sampling_probs([0, 0], alpha=0.5)


def test_sample_languages_follows_the_distribution() -> None:
    g = torch.Generator().manual_seed(0)
    draws = sample_languages([0.75, 0.25], 20_000, generator=g)
    assert abs(draws.float().mean().item() - 0.25) < 0.01


# ---------------------------------------------------------------- sequence cross-entropy


def test_sequence_cross_entropy_ignores_padding_hand_computed() -> None:
    logits = torch.tensor([0.0, math.log(3.0)]).expand(2, 2, 2).clone()  # p = [1/4, 3/4] everywhere
    targets = torch.tensor([[1, 0], [1, IGNORE_INDEX]])
    expected = -(math.log(0.75) + math.log(0.25) + math.log(0.75)) / 3
    assert sequence_cross_entropy(logits, targets).item() == pytest.approx(expected, rel=1e-6)
    padded = torch.tensor([[1, 0], [1, 0]])
    assert sequence_cross_entropy(logits, padded, ignore_index=0).item() == pytest.approx(-math.log(0.75), rel=1e-6)
    total, n = sequence_nll(logits, targets)
    assert int(n) == 3 and perplexity(total, n) == pytest.approx(math.exp(expected), rel=1e-6)
    with pytest.raises(ValueError, match="no token"):
        sequence_cross_entropy(logits, torch.full((2, 2), IGNORE_INDEX))
    with pytest.raises(ValueError, match="vocabulary axis"):
        sequence_cross_entropy(logits, targets[:, :1])


# ---------------------------------------------------------------- decoder


def test_teacher_forcing_pair_shifts_and_appends_eos() -> None:
    inputs, targets = teacher_forcing_pair(torch.tensor([[5, 6, 7], [8, 9, 0]]), torch.tensor([3, 2]), bos_id=BOS, eos_id=EOS)
    assert inputs.tolist() == [[BOS, 5, 6, 7], [BOS, 8, 9, PAD]]
    assert targets.tolist() == [[5, 6, 7, EOS], [8, 9, EOS, IGNORE_INDEX]]


@pytest.mark.parametrize("condition", ["input", "init", "both"])
def test_decoder_shapes_and_conditioning(condition: str) -> None:
    torch.manual_seed(0)
    dec = LSTMDecoder(V, 12, bos_id=BOS, eos_id=EOS, embed_dim=8, hidden_dim=10, n_layers=2, condition=condition)
    s = torch.randn(3, 12)
    inputs = torch.randint(5, V, (3, 6))
    logits = dec(s, inputs)
    assert logits.shape == (3, 6, V)
    assert (logits - dec(torch.randn(3, 12), inputs)).abs().max() > 1e-4, "the sentence vector conditions the output"
    later = inputs.clone()
    later[:, 4:] = 7
    torch.testing.assert_close(dec(s, later)[:, :4], logits[:, :4])


def test_greedy_decode_stops_at_eos() -> None:
    dec = LSTMDecoder(V, 4, bos_id=BOS, eos_id=EOS, embed_dim=4, hidden_dim=4, n_layers=1)
    with torch.no_grad():
        dec.output.weight.zero_()
        dec.output.bias.zero_()
        dec.output.bias[9] = 5.0
    ids, lens = dec.greedy_decode(torch.randn(2, 4), max_len=6)
    assert ids.tolist() == [[9] * 6] * 2 and lens.tolist() == [6, 6]
    with torch.no_grad():
        dec.output.bias[EOS] = 10.0
    ids, lens = dec.greedy_decode(torch.randn(2, 4), max_len=6)
    assert lens.tolist() == [0, 0] and (ids == PAD).all()


def test_seq2seq_rejects_mismatched_sizes() -> None:
    enc = TransformerSentenceEncoder(V, d_model=8, n_heads=2, n_layers=1, pooling="mean")
    with pytest.raises(ValueError, match="sentence_dim"):
        Seq2Seq(enc, LSTMDecoder(V, 16, bos_id=BOS, eos_id=EOS))


# ---------------------------------------------------------------- SDAE noise, SkipThought pairs, Seq2Tree


def test_sdae_noise_identity_and_bigram_swaps() -> None:
    ids = torch.tensor([[BOS, 10, 11, 12, 13, 14, EOS], [BOS, 20, 21, 22, EOS, PAD, PAD]])
    lens = torch.tensor([7, 5])
    same, same_len = sdae_noise(ids, lens, p_drop=0.0, p_swap=0.0, protected_ids=(BOS, EOS))
    assert torch.equal(same, ids) and torch.equal(same_len, lens)
    swapped, _ = sdae_noise(ids, lens, p_drop=0.0, p_swap=1.0, protected_ids=(BOS, EOS))
    assert swapped.tolist() == [[BOS, 11, 10, 13, 12, 14, EOS], [BOS, 21, 20, 22, EOS, PAD, PAD]]


def test_sdae_noise_drops_words_in_order_and_keeps_protected_tokens() -> None:
    ids, lens = random_batch(200, 12, seed=7)
    g = torch.Generator().manual_seed(1)
    out, out_len = sdae_noise(ids, lens, p_drop=0.3, p_swap=0.0, protected_ids=(BOS, EOS), generator=g)
    body_before = (lens - 2).sum().item()
    body_after = (out_len - 2).sum().item()
    assert 0.62 < body_after / body_before < 0.78, "about 30% of the words are dropped"
    assert (out_len >= 3).all(), "a sentence keeps at least one word"
    for row, n, orig, m in zip(out.tolist(), out_len.tolist(), ids.tolist(), lens.tolist()):
        assert row[0] == BOS and row[n - 1] == EOS and all(t == PAD for t in row[n:])
        it = iter(orig[1 : m - 1])
        assert all(t in it for t in row[1 : n - 1]), "kept words keep their order"


def test_local_shuffle_is_a_bounded_permutation() -> None:
    ids, lens = random_batch(300, 15, seed=8)
    g = torch.Generator().manual_seed(2)
    out, out_len = sdae_noise(ids, lens, p_drop=0.0, shuffle_k=3, protected_ids=(BOS, EOS), generator=g)
    assert torch.equal(out_len, lens)
    moved = 0
    for row, orig, n in zip(out.tolist(), ids.tolist(), lens.tolist()):
        assert row[0] == BOS and row[n - 1] == EOS and sorted(row) == sorted(orig)
        where = {tok: i for i, tok in enumerate(orig[:n])}
        if len(where) == n:  # tokens unique in the row: displacement is well defined
            assert max(abs(where[t] - i) for i, t in enumerate(row[:n])) <= 3
        moved += row != orig
    assert moved > 200, "most rows are actually shuffled"


def test_next_sentence_pairs_stay_inside_documents() -> None:
    src, tgt = next_sentence_pairs([0, 0, 0, 1, 2, 2])
    assert src.tolist() == [0, 1, 4] and tgt.tolist() == [1, 2, 5]


def test_linearize_tree_matches_the_thesis_example() -> None:
    tree = "(ROOT (S (NP (NNP Dikoya)) (VP (VBZ is) (NP (NP (DT a) (NN village)) (PP (IN in) (NP (NNP Sri) (NNP Lanka))))) (. .)))"
    expected = "(ROOT (S (NP NNP )NP (VP VBZ (NP (NP DT NN )NP (PP IN (NP NNP NNP )NP )PP )NP )VP . )S )ROOT"
    assert " ".join(linearize_tree(tree)) == expected
    with pytest.raises(ValueError, match="unbalanced"):
        linearize_tree("(S (NP (DT a))")
