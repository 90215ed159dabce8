"""Read and write the InferSent release format (``infersent1.pkl`` / ``infersent2.pkl``).

The release files hold only the BiLSTM: a state dict with keys ``enc_lstm.weight_ih_l0``,
``enc_lstm.weight_hh_l0``, ``enc_lstm.bias_ih_l0``, ``enc_lstm.bias_hh_l0`` and the same with
``_reverse`` (2 x 2048 units over 300-d word vectors). Word vectors are not inside: version 1 reads
GloVe 840B with ``<s>``/``</s>``, version 2 fastText crawl vectors with ``<p>``/``</p>``. We load
the weights into our :class:`~xsent_lib.encoders.recurrent.RecurrentEncoder` (BiLSTM-max). By
default :func:`load_infersent` also reads text as the release does (:mod:`xsent_lib.text.release`:
NLTK-style tokens, cased, the version's boundary tokens, words without a vector dropped), so it
gives the release's vectors; a pipeline of our own (lower-cased words, unknown words as a zero step)
is the option.

One deliberate difference: the release's version-1 max-pool also reads padding (issue #51), so its
batched vectors depend on batch composition; ours are masked. For a sentence encoded alone both
agree.
Book: chapter 3 (InferSent: using the released model).
"""
from __future__ import annotations

import pickle
import re
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import torch

from xsent_lib.encoders.recurrent import RecurrentEncoder
from xsent_lib.text.pipeline import TextPipeline
from xsent_lib.text.release import RELEASE_BOUNDARIES, DropUnknownPipeline, InferSentTokenizer
from xsent_lib.text.vocab import PAD_TOKEN, UNK_TOKEN, Vocab

PREFIX = "enc_lstm."
SUFFIXES = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
KEYS = tuple(PREFIX + s + d for d in ("", "_reverse") for s in SUFFIXES)
# Sentence boundary tokens of each release version (version 2 also adds a Moses-like "n't" hack to
# the tokens).
BOUNDARY_TOKENS: dict[int, tuple[str, str]] = RELEASE_BOUNDARIES
OOV_MODES = ("drop", "zero")


def infersent_state_dict(encoder: RecurrentEncoder) -> dict[str, torch.Tensor]:
    """Our BiLSTM-max's LSTM weights under the release's key names (CPU copies).

    Book: chapter 3 (InferSent: using the released model).
    """
    if not isinstance(encoder, RecurrentEncoder):
        raise TypeError(f"expected a RecurrentEncoder, got {type(encoder).__name__}.")
    if encoder.cell != "lstm" or not encoder.bidirectional or encoder.num_layers != 1:
        raise ValueError(
            "the InferSent format holds a one-layer bidirectional LSTM; this encoder is "
            f"cell={encoder.cell!r}, bidirectional={encoder.bidirectional}, "
            f"num_layers={encoder.num_layers}."
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
        raise FileNotFoundError(f"No InferSent weights at {path}; infersent1.pkl/infersent2.pkl "
                                "come from the InferSent release.")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, AttributeError, EOFError) as err:
        raise ValueError(
            f"{path} cannot be read as plain weights ({type(err).__name__}: {err}). If you trust "
            "the file, convert it once in a separate Python session: unpickle it fully "
            "(weights_only disabled), take its state_dict, keep the 'enc_lstm.*' tensors and "
            "torch.save that dict; then load the converted file here."
        ) from err
    if not isinstance(state, dict):
        raise ValueError(f"{path} holds a {type(state).__name__}, not a state dict of tensors.")
    missing = [k for k in KEYS if k not in state]
    if missing:
        raise ValueError(f"{path} is not an InferSent BiLSTM state dict: missing {missing}; found "
                         f"{sorted(state)[:8]}.")
    return state


def _word_table(embeddings) -> tuple[list[str], np.ndarray]:
    """Words and their vectors from a WordVectors (``.words``/``.vectors``) or a ``{word: vector}``
    mapping."""
    if hasattr(embeddings, "words") and hasattr(embeddings, "vectors"):
        return list(embeddings.words), np.asarray(embeddings.vectors, dtype=np.float32)
    if isinstance(embeddings, Mapping):
        words = list(embeddings)
        if not words:
            raise ValueError("the word-vector mapping is empty.")
        return words, np.stack([np.asarray(embeddings[w], dtype=np.float32) for w in words])
    raise TypeError("release mode needs word vectors with their words: a WordVectors "
                    f"(load_glove_txt / load_vec) or a {{word: vector}} dict, got "
                    f"{type(embeddings).__name__}. A bare matrix needs pipeline=...")


def _version_from_name(path: Path) -> int | None:
    m = re.search(r"infersent([12])", path.name.lower())
    return int(m.group(1)) if m else None


def load_infersent(
    path: str | Path,
    embeddings: torch.Tensor | np.ndarray | Mapping[str, np.ndarray] | object,
    pipeline: TextPipeline | None = None,
    freeze_embeddings: bool = True,
    *,
    version: int | None = None,
    tokenize: bool = True,
    oov: str = "drop",
) -> RecurrentEncoder:
    """Build a BiLSTM-max encoder from a release file plus word vectors; by default it gives the
    release's vectors.

    **Release mode** (no ``pipeline``; the default): ``embeddings`` are the word vectors with their
    words (a :class:`~xsent_lib.data.formats.vectors.WordVectors` from ``load_glove_txt`` /
    ``load_vec``, or a ``{word: vector}`` dict); ``version`` is 1 (``infersent1.pkl``, GloVe 840B)
    or 2 (``infersent2.pkl``, fastText crawl), read from the file name when not given. ``encode``
    then does what the release's ``encode`` does: NLTK ``word_tokenize`` tokens, cased (v2 with its
    ``n't`` hack; ``tokenize=False`` splits on spaces), wrapped in ``<s>``/``</s>`` (v1) or
    ``<p>``/``</p>`` (v2), words without a vector dropped (``oov="drop"``; a sentence left empty is
    encoded as the end token alone). ``oov="zero"`` is our own choice instead: an unknown word stays
    in the sentence as a zero-vector step. One difference remains, on purpose: the release's
    version-1 max-pool also reads padding (InferSent issue #51), so its batched v1 vectors depend on
    which sentences share a batch; ours are masked and equal the release's for a sentence encoded
    alone.

    **Pipeline mode** (``embeddings`` a matrix, ``pipeline`` given or attached later): our own
    tokenisation and vocabulary; row ``i`` is the vector of ``pipeline.vocab`` token ``i`` (row 0,
    padding, is zeroed), and unknown words are the pipeline's ``<unk>`` row.
    ``version``/``tokenize``/``oov`` do not apply there and are refused.

    Sizes are read from the file (release: hidden 2048, word_dim 300). The vectors are frozen by
    default, as in InferSent.
    Book: chapter 3 (InferSent: using the released model).
    """
    path = Path(path)
    state = _read_state(path)
    four_h, word_dim = state[PREFIX + "weight_ih_l0"].shape
    if pipeline is not None or isinstance(embeddings, (np.ndarray, torch.Tensor)):
        if version is not None or not tokenize or oov != "drop":
            raise ValueError("version/tokenize/oov choose the release's text handling, which needs "
                             "the words of the vectors (a WordVectors or {word: vector} dict); "
                             "with a bare matrix (and pipeline=...) your own pipeline tokenises "
                             "and maps unknown words to <unk>. Drop one or the other.")
        emb = torch.as_tensor(np.asarray(embeddings) if not isinstance(embeddings, torch.Tensor)
                              else embeddings)
    else:
        if oov not in OOV_MODES:
            raise ValueError(
                f"oov must be one of {OOV_MODES} ('drop': the release's), got {oov!r}.")
        version = _version_from_name(path) if version is None else version
        if version not in BOUNDARY_TOKENS:
            raise ValueError("version must be 1 (infersent1.pkl: GloVe, <s>/</s>) or 2 "
                             f"(infersent2.pkl: fastText, <p>/</p>); got {version!r} and the file "
                             f"name {path.name!r} does not say. Pass version=1|2.")
        words, vectors = _word_table(embeddings)
        pipeline, emb = release_pipeline(words, vectors, version, tokenize=tokenize, oov=oov)
    if emb.dim() != 2 or emb.shape[1] != word_dim:
        raise ValueError(f"the LSTM reads {word_dim}-d word vectors but embeddings have shape "
                         f"{tuple(emb.shape)}.")
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


def release_pipeline(words: list[str], vectors: np.ndarray, version: int, tokenize: bool = True,
                     oov: str = "drop") -> tuple[TextPipeline, torch.Tensor]:
    """The text pipeline and embedding matrix that make our encoder read sentences as the release
    does.

    ``oov="drop"`` (the release) removes words without a vector; ``"zero"`` keeps them as a
    zero-vector step.
    Book: chapter 3 (InferSent: using the released model).
    """
    if oov not in OOV_MODES:
        raise ValueError(f"oov must be one of {OOV_MODES}, got {oov!r}.")
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or vectors.shape[0] != len(words):
        raise ValueError(f"need one vector per word: {len(words)} words, vectors of shape "
                         f"{vectors.shape}.")
    keep = [i for i, w in enumerate(words) if w not in (PAD_TOKEN, UNK_TOKEN)]
    first = {}
    for i in keep:
        first.setdefault(words[i], i)  # the first (most frequent) row of a repeated word wins
    vocab = Vocab([PAD_TOKEN, UNK_TOKEN, *first])
    matrix = np.zeros((len(vocab), vectors.shape[1]), np.float32)
    matrix[2:] = vectors[list(first.values())]
    bos, eos = BOUNDARY_TOKENS[version]
    tok = InferSentTokenizer(version, tokenize=tokenize)
    if oov == "drop":
        pipe: TextPipeline = DropUnknownPipeline(tok, vocab, bos=bos, eos=eos)
    else:
        for t in (bos, eos):
            if t not in vocab:
                raise ValueError(f"the boundary token {t!r} has no vector; oov='zero' needs it in "
                                 "the word vectors.")
        pipe = TextPipeline(tok, vocab, bos=bos, eos=eos)
    return pipe, torch.from_numpy(matrix)
