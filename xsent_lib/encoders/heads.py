"""Heads on top of sentence vectors: the NLI feature combiner + MLP, generic MLPs, linear
classifier/regressor.

Book: chapter 3 (InferSent: the NLI training scheme).
"""
from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from xsent_lib.encoders.base import SentenceEncoder

ACTIVATIONS: dict[str, type[nn.Module] | None] = {"none": None, "tanh": nn.Tanh, "relu": nn.ReLU,
                                                  "sigmoid": nn.Sigmoid}


def nli_features(u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The InferSent pair features ``[u, v, |u - v|, u * v]`` (``[B, 4d]``).

    Book: chapter 3 (InferSent: the NLI training scheme).
    """
    if u.shape != v.shape or u.dim() != 2:
        raise ValueError(f"u and v must both be [B, d] with the same shape, got {tuple(u.shape)} "
                         f"and {tuple(v.shape)}.")
    return torch.cat([u, v, (u - v).abs(), u * v], dim=1)


class MLP(nn.Module):
    """Linear layers of sizes ``input_dim -> *hidden_dims -> output_dim`` with an activation and
    dropout between.

    Dropout precedes every linear layer (as InferSent's ``nonlinear_fc`` classifier).
    ``activation="none"`` gives a stack of linear maps (InferSent's default classifier). Also the
    probing MLP (sigmoid) and Wang et al.'s 512-384 classifier.
    Book: chapter 4 (Probing: the probing classifier).
    """

    def __init__(
        self,
        input_dim: int,
        hidden_dims: Sequence[int],
        output_dim: int,
        activation: str = "tanh",
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}.")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must lie in [0, 1), got {dropout!r}.")
        sizes = [input_dim, *hidden_dims, output_dim]
        if not all(isinstance(s, int) and s >= 1 for s in sizes):
            raise ValueError(f"all layer sizes must be positive integers, got {sizes}.")
        layers: list[nn.Module] = []
        act = ACTIVATIONS[activation]
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            if dropout > 0:
                layers.append(nn.Dropout(dropout))
            layers.append(nn.Linear(a, b))
            if act is not None and i < len(sizes) - 2:
                layers.append(act())
        self.net = nn.Sequential(*layers)
        self.input_dim, self.output_dim = input_dim, output_dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Apply the layers to ``x[B, input_dim]``. Book: chapter 4 (Probing: the probing
        classifier)."""
        return self.net(x)


class NLIClassifier(nn.Module):
    """``[u, v, |u-v|, u*v]`` -> MLP -> ``num_classes`` logits.

    Thesis: one hidden layer of 512 units; it does not name the activation, we default to tanh
    (InferSent's ``nonlinear_fc`` option). The released code's default is ``num_hidden_layers=2,
    activation="none"`` (Linear 4d->512->512->3, no nonlinearity).
    Book: chapter 3 (InferSent: the NLI training scheme).
    """

    def __init__(
        self,
        encoder_dim: int,
        hidden_dim: int = 512,
        num_classes: int = 3,
        num_hidden_layers: int = 1,
        activation: str = "tanh",
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if not isinstance(num_hidden_layers, int) or num_hidden_layers < 0:
            raise ValueError("num_hidden_layers must be a non-negative integer, got "
                             f"{num_hidden_layers!r}.")
        self.mlp = MLP(4 * encoder_dim, [hidden_dim] * num_hidden_layers, num_classes, activation,
                       dropout)

    def forward(self, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, num_classes]`` for premise vectors ``u`` and hypothesis vectors ``v``.

        Book: chapter 3 (InferSent: the NLI training scheme).
        """
        return self.mlp(nli_features(u, v))


class NLIModel(nn.Module):
    """A shared sentence encoder and an :class:`NLIClassifier`: premise and hypothesis never see
    each other.

    Book: chapter 3 (InferSent: the NLI training scheme).
    """

    def __init__(self, encoder: SentenceEncoder, classifier: NLIClassifier | None = None) -> None:
        super().__init__()
        if not isinstance(encoder, SentenceEncoder):
            raise TypeError(f"encoder must be a SentenceEncoder, got {type(encoder).__name__}.")
        self.encoder = encoder
        self.classifier = (classifier if classifier is not None
                           else NLIClassifier(encoder.output_dim))
        if self.classifier.mlp.input_dim != 4 * encoder.output_dim:
            raise ValueError(
                f"classifier expects {self.classifier.mlp.input_dim // 4}-d sentence vectors, "
                f"encoder gives {encoder.output_dim}."
            )

    def forward(
        self,
        premise_ids: torch.Tensor,
        premise_lengths: torch.Tensor,
        hypothesis_ids: torch.Tensor,
        hypothesis_lengths: torch.Tensor,
    ) -> torch.Tensor:
        """Logits ``[B, num_classes]`` for padded premise and hypothesis batches.

        Book: chapter 3 (InferSent: the NLI training scheme).
        """
        return self.classifier(self.encoder(premise_ids, premise_lengths),
                               self.encoder(hypothesis_ids, hypothesis_lengths))


class LinearClassifier(nn.Module):
    """One linear layer to ``num_classes`` logits (logistic regression; Wang et al.'s linear context
    classifier).

    Book: chapter 2 (Evaluating sentence embeddings: the SentEval classifiers).
    """

    def __init__(self, input_dim: int, num_classes: int) -> None:
        super().__init__()
        if (not isinstance(input_dim, int) or input_dim < 1
                or not isinstance(num_classes, int) or num_classes < 1):
            raise ValueError("input_dim and num_classes must be positive integers, got "
                             f"{input_dim!r}, {num_classes!r}.")
        self.linear = nn.Linear(input_dim, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, num_classes]``. Book: chapter 2 (Evaluating sentence embeddings: the
        SentEval classifiers)."""
        return self.linear(x)


class LinearRegressor(nn.Module):
    """One linear layer to a real score (``[B]``) or ``output_dim`` scores (``[B, output_dim]``).

    Book: chapter 9 (Multilingual embeddings from monolingual text: coherence regression).
    """

    def __init__(self, input_dim: int, output_dim: int = 1) -> None:
        super().__init__()
        if (not isinstance(input_dim, int) or input_dim < 1
                or not isinstance(output_dim, int) or output_dim < 1):
            raise ValueError("input_dim and output_dim must be positive integers, got "
                             f"{input_dim!r}, {output_dim!r}.")
        self.linear = nn.Linear(input_dim, output_dim)
        self.output_dim = output_dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Scores ``[B]`` (one output) or ``[B, output_dim]``. Book: chapter 9 (coherence
        regression)."""
        y = self.linear(x)
        return y.squeeze(-1) if self.output_dim == 1 else y
