"""Sentence encoders: the shared contract, bags of vectors, RNNs, attention, ConvNets, Transformers,
decoders, heads.

Book: chapter 3 (InferSent: sentence encoders).
"""
from __future__ import annotations

from xsent_lib.base.masking import check_batch, length_mask, masked_max, masked_mean
from xsent_lib.encoders.attention import InnerAttentionEncoder
from xsent_lib.encoders.bag import (
    BagOfVectorsEncoder,
    first_principal_component,
    remove_principal_component,
    sif_weights,
)
from xsent_lib.encoders.base import SentenceEncoder, build_embedding
from xsent_lib.encoders.convnet import GatedConvNetEncoder, HierarchicalConvNetEncoder
from xsent_lib.encoders.decoder import LSTMDecoder, Seq2Seq
from xsent_lib.encoders.heads import (
    MLP,
    LinearClassifier,
    LinearRegressor,
    NLIClassifier,
    NLIModel,
    nli_features,
)
from xsent_lib.encoders.infersent_format import load_infersent, save_infersent
from xsent_lib.encoders.recurrent import ARCHITECTURES, RecurrentEncoder
from xsent_lib.encoders.transformer import TransformerSentenceEncoder

# The seven encoders of thesis Table 3.6 plus the probing ConvNet, by the names the book uses.
NLI_ENCODERS = (*ARCHITECTURES, "inner-attention", "hconvnet", "gated-convnet")


def build_encoder(name: str, vocab_size: int, **kwargs: object) -> SentenceEncoder:
    """Build an encoder by its thesis name: ``"lstm"``, ``"gru"``, ``"bigru-last"``,
    ``"bilstm-last"``, ``"bilstm-mean"``, ``"bilstm-max"``, ``"inner-attention"``, ``"hconvnet"`` or
    ``"gated-convnet"``.

    Extra keyword arguments go to the encoder's constructor (sizes, embeddings, pipeline, ...).
    Book: chapter 3 (InferSent: the seven encoders).
    """
    key = name.lower()
    if key in ARCHITECTURES:
        return RecurrentEncoder.from_architecture(key, vocab_size, **kwargs)
    if key == "inner-attention":
        return InnerAttentionEncoder(vocab_size, **kwargs)
    if key == "hconvnet":
        return HierarchicalConvNetEncoder(vocab_size, **kwargs)
    if key == "gated-convnet":
        return GatedConvNetEncoder(vocab_size, **kwargs)
    raise ValueError(f"unknown encoder {name!r}; known: {list(NLI_ENCODERS)}.")


__all__ = [
    "ARCHITECTURES",
    "MLP",
    "NLI_ENCODERS",
    "BagOfVectorsEncoder",
    "GatedConvNetEncoder",
    "HierarchicalConvNetEncoder",
    "InnerAttentionEncoder",
    "LSTMDecoder",
    "LinearClassifier",
    "LinearRegressor",
    "NLIClassifier",
    "NLIModel",
    "RecurrentEncoder",
    "SentenceEncoder",
    "Seq2Seq",
    "TransformerSentenceEncoder",
    "build_embedding",
    "build_encoder",
    "check_batch",
    "first_principal_component",
    "length_mask",
    "load_infersent",
    "masked_max",
    "masked_mean",
    "nli_features",
    "remove_principal_component",
    "save_infersent",
    "sif_weights",
]
