"""The faster encoding paths of issue 26 give today's outputs on the CPU: threaded sentencepiece
over chunks, the chunked bag-of-vectors loop (the CUDA path's logic), the sorted-once recurrent
encoder."""

import numpy as np
import pytest
import torch

from xsent_lib.encoders.bag import BagOfVectorsEncoder
from xsent_lib.encoders.base import SentenceEncoder
from xsent_lib.encoders.infersent_format import load_infersent, save_infersent
from xsent_lib.encoders.recurrent import RecurrentEncoder
from xsent_lib.text import tokenizers
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.tokenizers import WordTokenizer, train_sentencepiece

CPU = torch.device("cpu")


def _sentences(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    words = [f"w{i}" for i in range(300)] + ["the", "a", "cat", "sat", "on", "mat"]
    lens = rng.integers(1, 25, n)
    return [" ".join(words[j] for j in rng.integers(0, len(words), k)) for k in lens]


def test_threaded_sentencepiece_chunks_equal_one_call(tmp_path, monkeypatch):
    sents = _sentences(400)
    sp = train_sentencepiece(sents, 200, tmp_path / "m")
    sents = sents + sents[:50] + ["", "cat"]  # repeats take the distinct path, empty gives no ids
    ref = sp._sp.encode(sents, out_type=int)
    monkeypatch.setattr(tokenizers, "_CHUNK_MIN", 16)
    for threads in (1, 3):
        flat, offsets = sp.encode_ids_flat(sents, num_threads=threads)
        assert offsets.tolist()[-1] == sum(map(len, ref))
        assert [flat[offsets[i] : offsets[i + 1]].tolist() for i in range(len(sents))] == ref


@pytest.mark.parametrize("pooling", ["mean", "sum", "sif"])
def test_chunked_bag_loop_equals_one_call(pooling):
    rng = np.random.default_rng(1)
    lengths = rng.integers(1, 30, 700)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    flat = rng.integers(1, 400, offsets[-1]).astype(np.int64)
    torch.manual_seed(0)
    probs = rng.dirichlet(np.ones(400)) if pooling == "sif" else None
    enc = BagOfVectorsEncoder(400, 16, pooling=pooling, sif_probabilities=probs).eval()
    enc.principal_component.copy_(torch.nn.functional.normalize(torch.randn(16), dim=0))
    with torch.inference_mode():
        one = enc.encode_csr(flat, offsets, 128, CPU)
        chunked = enc._encode_chunked(flat, offsets, 100, CPU, chunk=250)
    np.testing.assert_array_equal(chunked, one)


@pytest.mark.parametrize("arch", ["bilstm-max", "bilstm-mean", "bigru-last", "lstm"])
def test_recurrent_encode_sorted_once_equals_generic_path(arch):
    sents = _sentences(300, seed=2)
    pipe = TextPipeline.fit(sents, WordTokenizer())
    torch.manual_seed(0)
    enc = RecurrentEncoder.from_architecture(
        arch, len(pipe.vocab), word_dim=24, hidden_dim=32, pipeline=pipe
    ).eval()
    flat, offsets = pipe.encode_flat(sents)
    with torch.inference_mode():
        generic = SentenceEncoder.encode_csr(enc, flat, offsets, 64, CPU)
    for bs in (64, 1000):
        np.testing.assert_allclose(
            enc.encode(sents, batch_size=bs, device="cpu"), generic, atol=1e-6
        )


def test_infersent_release_encoding_equals_generic_path_and_bfloat16_close(tmp_path):
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(500)]
    vecs = rng.standard_normal((502, 300)).astype(np.float32) * 0.3
    word_vec = {w: vecs[i] for i, w in enumerate(words)} | {"<p>": vecs[500], "</p>": vecs[501]}
    sents = [" ".join(rng.choice(words, size=k)) for k in rng.integers(3, 30, 200)]
    torch.manual_seed(0)
    save_infersent(RecurrentEncoder(10, hidden_dim=48), tmp_path / "infersent2.pkl")
    enc = load_infersent(tmp_path / "infersent2.pkl", word_vec, tokenize=False).eval()
    flat, offsets = enc.pipeline.encode_flat(sents)
    with torch.inference_mode():
        generic = SentenceEncoder.encode_csr(enc, flat, offsets, 128, CPU)
    ours = enc.encode(sents, batch_size=128, device="cpu")
    np.testing.assert_allclose(ours, generic, atol=1e-6)
    bf16 = enc.encode(sents, batch_size=128, device="cpu", precision="bfloat16")
    cos = (bf16 * ours).sum(1) / np.linalg.norm(bf16, axis=1) / np.linalg.norm(ours, axis=1)
    assert cos.min() > 0.999
