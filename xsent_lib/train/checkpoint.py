"""Checkpoints as plain state dicts, written with ``torch.save`` and read with
``weights_only=True``.

No pickled classes travel in a checkpoint, only tensors and plain Python values, so loading one
never runs foreign code and survives library refactors.
Book: chapter 0 (Preface: checkpoints and reproducibility).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import torch
from torch import nn

CHECKPOINT_FORMAT = 1


def save_checkpoint(
    path: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer | None = None,
    **extra: Any,
) -> Path:
    """Write the model (and optimizer) state dicts plus plain ``extra`` values to ``path``.

    ``extra`` may hold numbers, strings, lists, dicts and tensors (e.g. ``epoch=3``,
    ``history=history.to_dict()``); parent folders are created. Tensors are saved from the CPU.
    Book: chapter 0 (Preface: checkpoints and reproducibility).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be an nn.Module, got {type(model).__name__}.")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "torch_version": str(torch.__version__),
        "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
        "optimizer": optimizer.state_dict() if optimizer is not None else None,
        "extra": extra,
    }
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)
    return path


def load_checkpoint(
    path: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer | None = None,
) -> dict[str, Any]:
    """Load a :func:`save_checkpoint` file into ``model`` (and ``optimizer``); return its ``extra``
    dict.

    Reads with ``torch.load(..., weights_only=True)`` onto the CPU, then copies into the model's
    own tensors, so the model keeps its device. Shape or key mismatches raise a clear error.
    Book: chapter 0 (Preface: checkpoints and reproducibility).
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No checkpoint at {path}; write one with save_checkpoint(path, "
                                "model).")
    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is not a checkpoint written by xsent_lib.train.save_checkpoint.")
    try:
        model.load_state_dict(payload["model"])
    except RuntimeError as err:
        raise ValueError(f"checkpoint {path} does not fit this model (built with other sizes?): "
                         f"{err}") from err
    if optimizer is not None:
        if payload["optimizer"] is None:
            raise ValueError(f"checkpoint {path} holds no optimizer state; load it without "
                             "optimizer=.")
        optimizer.load_state_dict(payload["optimizer"])
    return payload["extra"]
