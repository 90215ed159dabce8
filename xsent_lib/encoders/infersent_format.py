"""Read and write the InferSent release format (``infersent1.pkl`` / ``infersent2.pkl``).

The release files hold only the BiLSTM: a state dict with keys ``enc_lstm.weight_ih_l0``,
``enc_lstm.weight_hh_l0``, ``enc_lstm.bias_ih_l0``, ``enc_lstm.bias_hh_l0`` and the same with
``_reverse`` (2 x 2048 units over 300-d word vectors). Word vectors are not inside: version 1 reads
GloVe 840B with ``<s>``/``</s>``, version 2 fastText crawl vectors with ``<p>``/``</p>``. We load the
weights into our :class:`~xsent_lib.encoders.recurrent.RecurrentEncoder` (BiLSTM-max) together with a
word-vector matrix aligned to a pipeline's vocabulary.

One deliberate difference: the release's version-1 max-pool also reads padding (issue #51), so its
batched vectors depend on batch composition; ours are masked. For a sentence encoded alone both agree.
Book: chapter 3 (InferSent: using the released model).
"""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import torch

from xsent_lib.encoders.recurrent import RecurrentEncoder
from xsent_lib.text.pipeline import TextPipeline

PREFIX = "enc_lstm."
SUFFIXES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
KEYS = tuple(PREFIX + s + d for d in ("", "_reverse") for s in SUFFIXES)
# Sentence boundary tokens of each release version (version 2 also switched to Moses-like tokenisation).
BOUNDARY_TOKENS: dict[int, tuple[str, str]] = {1: ("<s>", "</s>"), 2: ("<p>", "</p>")}


def infersent_state_dict(encoder: RecurrentEncoder) -> dict[str, torch.Tensor]:
    """Our BiLSTM-max's LSTM weights under the release's key names (CPU copies).

    Book: chapter 3 (InferSent: using the released model).
    """
    if not isinstance(encoder, RecurrentEncoder):
        raise TypeError(f"expected a RecurrentEncoder, got {type(encoder).__name__}.")
    if encoder.cell != "lstm" or not encoder.bidirectional or encoder.num_layers != 1:
        raise ValueError(
            "the InferSent format holds a one-layer bidirectional LSTM; this encoder is "
            f"cell={encoder.cell!r}, bidirectional={encoder.bidirectional}, num_layers={encoder.num_layers}."
        )
    rnn_state = encoder.rnn.state_dict()
    return {k: rnn_state[k[len(PREFIX) :]].detach().cpu().clone() for k in KEYS}


def save_infersent(encoder: RecurrentEncoder, path: str | Path) -> None:
    """Write ``encoder``'s BiLSTM in the release format (a plain tensor state dict).

    Book: chapter 3 (InferSent: using the released model).
    """
    torch.save(infersent_state_dict(encoder), Path(path))


def _read_state(path: Path) -> dict[str, torch.Tensor]:
    if not path.is_file():
        raise FileNotFoundError(f"No InferSent weights at {path}; infersent1.pkl/infersent2.pkl come from the InferSent release.")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, AttributeError, EOFError) as err:
        raise ValueError(
            f"{path} cannot be read as plain weights ({type(err).__name__}: {err}). If you trust the file, convert "
            "it once in a separate Python session: unpickle it fully (weights_only disabled), take its state_dict, "
            "keep the 'enc_lstm.*' tensors and torch.save that dict; then load the converted file here."
        ) from err
    if not isinstance(state, dict):
        raise ValueError(f"{path} holds a {type(state).__name__}, not a state dict of tensors.")
    missing = [k for k in KEYS if k not in state]
    if missing:
        raise ValueError(f"{path} is not an InferSent BiLSTM state dict: missing {missing}; found {sorted(state)[:8]}.")
    return state


def load_infersent(
    path: str | Path,
    embeddings: torch.Tensor | np.ndarray,
    pipeline: TextPipeline | None = None,
    freeze_embeddings: bool = True,
) -> RecurrentEncoder:
    """Build a BiLSTM-max encoder from a release file plus word vectors ``embeddings[V, word_dim]``.

    ``embeddings`` row ``i`` must be the vector of ``pipeline.vocab`` token ``i`` (row 0, padding,
    is zeroed). Sizes are read from the file (release: hidden 2048, word_dim 300). The vectors are
    frozen by default, as in InferSent.
    Book: chapter 3 (InferSent: using the released model).
    """
    state = _read_state(Path(path))
    four_h, word_dim = state[PREFIX + "weight_ih_l0"].shape
    emb = torch.as_tensor(np.asarray(embeddings) if not isinstance(embeddings, torch.Tensor) else embeddings)
    if emb.dim() != 2 or emb.shape[1] != word_dim:
        raise ValueError(f"the LSTM reads {word_dim}-d word vectors but embeddings have shape {tuple(emb.shape)}.")
    encoder = RecurrentEncoder(
        emb.shape[0],
        word_dim=int(word_dim),
        hidden_dim=int(four_h) // 4,
        cell="lstm",
        bidirectional=True,
        pooling="max",
        embeddings=emb,
        freeze_embeddings=freeze_embeddings,
        pipeline=pipeline,
    )
    encoder.rnn.load_state_dict({k[len(PREFIX) :]: state[k].to(torch.float32) for k in KEYS})
    return encoder
