"""Trained encoders saved by the chapters that train them, loaded back by chapter 11's leaderboard.

A chapter saves an encoder into its own run folder with :func:`save_encoder`:
``<results_dir>/<chapter>/<profile>/encoders/<name>/`` holds ``encoder.pt`` (the whole model, its
weights and its text pipeline, pickled by ``torch.save``) and ``card.json`` (name, chapter, training
data, supervision, parameter count, languages, profile, seed, commit). :func:`load_encoder` rebuilds
it as a :class:`LoadedEncoder` with ``encode(sentences, lang="en") -> np.ndarray``; a cross-lingual
encoder saved as one model per language (X-BiLSTM) or as one model with language embeddings (XLM)
encodes each language with its own. The two shipped encoders (USE-multilingual, mE5-small) are
loaded from the data cache by :func:`shipped_encoder`, never saved.

``encoder.pt`` is a pickle read with ``torch.load(weights_only=True)``: only the classes of this
library, torch and numpy that the file names are admitted (:data:`TRUSTED_MODULES`), so loading runs
no foreign code; it needs the library version that wrote it (the card names the commit).
Book: chapter 11 (Reproducibility report: the leaderboard).
"""

from __future__ import annotations

import importlib
import json
import pickle
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from xsent_lib.encoders.baselines import REFERENCE_ENCODERS, reference_encoder
from xsent_lib.eval.xbilstm import REFERENCE_LANGUAGES
from xsent_lib.results.provenance import git_commit, library_hash
from xsent_lib.results.store import Run

#: what a model learned from, beyond raw text: the issue's four kinds plus the trees of Seq2Tree and
#: the pairs (questions, titles, translations) the shipped encoders were trained on
SUPERVISION = ("none", "NLI", "bitext", "dictionary", "trees", "pairs")
CARD, WEIGHTS = "card.json", "encoder.pt"
#: where the classes of a saved encoder may come from (see :func:`load_encoder`)
TRUSTED_MODULES = frozenset(
    {
        "xsent_lib",
        "torch",
        "numpy",
        "collections",
        "builtins",
        "copyreg",
        "_codecs",
        "sentencepiece",
    }
)
TRUSTED_NAMES = frozenset({"re._compile"})
#: the chapters that save encoders (chapter 11 says which to run when one has saved none)
SAVED_BY = (
    "03_infersent",
    "04_probing",
    "06_xnli",
    "07_aldarmaki",
    "08_wieting",
    "09_wang",
    "10_xlm",
)
#: the shipped encoders: what they were trained on (from their model cards) and the languages they
#: read
SHIPPED = {
    "USE": {
        "training_data": "web question-answer pairs, translation pairs, SNLI (its model card)",
        "supervision": "pairs + bitext + NLI",
        "dim": REFERENCE_ENCODERS["USE"][1],
        "languages": tuple(sorted(REFERENCE_LANGUAGES["USE"] or ())),
    },
    "mE5-small": {
        "training_data": "weakly paired web texts, then MS MARCO, NQ, NLI (its model card)",
        "supervision": "pairs + NLI",
        "dim": REFERENCE_ENCODERS["mE5-small"][1],
        "languages": (
            "ar",
            "bg",
            "de",
            "el",
            "en",
            "es",
            "fi",
            "fr",
            "hi",
            "ru",
            "sw",
            "th",
            "tr",
            "ur",
            "vi",
            "zh",
        ),
    },  # XNLI's 15 of its ~100
}


@dataclass(frozen=True)
class EncoderCard:
    """What the leaderboard shows beside an encoder's scores: where it comes from and what it read.

    ``world_seed`` is the seed of the synthetic world whose invented languages the encoder read
    (their words depend on it), ``None`` when it read none.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    name: str
    chapter: str
    training_data: str
    supervision: str
    parameters: int | None
    languages: tuple[str, ...]
    profile: str
    seed: int | None
    commit: str
    world_seed: int | None = None
    note: str = ""
    library_hash: str = ""

    def to_json(self) -> dict[str, Any]:
        """Plain values for card.json.

        Book: chapter 11 (Reproducibility report: the leaderboard).
        """
        return {**asdict(self), "languages": list(self.languages)}


class LanguageIdEncoder:
    """One Transformer with language embeddings (XLM) that encodes language ``lang`` with its id.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    def __init__(self, model: torch.nn.Module, lang_ids: Mapping[str, int]) -> None:
        if getattr(model, "language_embedding", None) is None:
            raise TypeError(
                f"{type(model).__name__} has no language embedding to tell languages apart."
            )
        self.model, self.lang_ids = model, dict(lang_ids)

    def encode(self, sentences: Sequence[str], lang: str) -> np.ndarray:
        """Vectors of ``sentences`` read as language ``lang``.

        Book: chapter 11 (Reproducibility report: the leaderboard).
        """
        if lang not in self.lang_ids:
            raise ValueError(f"this model knows languages {sorted(self.lang_ids)}, not {lang!r}.")
        self.model.eval()
        with torch.no_grad():
            out = self.model.encode(list(sentences), device="cpu", lang=self.lang_ids[lang])
        return np.asarray(out, np.float32)


@dataclass
class LoadedEncoder:
    """A saved (or shipped) encoder ready to embed: ``encode(sentences, lang="en")`` and its card.

    ``model`` is one encoder for every language, a ``{lang: encoder}`` mapping, or a
    :class:`LanguageIdEncoder`.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """

    card: EncoderCard
    model: Any
    path: Path | None = None

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages the encoder reads.

        Book: chapter 11 (Reproducibility report: the leaderboard).
        """
        return self.card.languages

    def encode(self, sentences: Sequence[str], lang: str = "en") -> np.ndarray:
        """``[len(sentences), dim]`` float32 vectors of ``sentences`` in language ``lang``.

        Book: chapter 11 (Reproducibility report: the leaderboard).
        """
        if lang not in self.card.languages:
            raise ValueError(
                f"encoder {self.card.name!r} reads {list(self.card.languages)}, not {lang!r}."
            )
        sentences = list(sentences)
        if isinstance(self.model, Mapping):
            out = _encode(self.model[lang], sentences)
        elif isinstance(self.model, LanguageIdEncoder):
            out = self.model.encode(sentences, lang)
        else:
            out = _encode(self.model, sentences)
        return np.asarray(out, np.float32)


def _encode(model: Any, sentences: list[str]) -> np.ndarray:
    if isinstance(model, torch.nn.Module):
        model.eval()
        with torch.no_grad():
            return model.encode(sentences, device="cpu")
    if callable(model) and not hasattr(model, "encode"):
        return model(sentences)
    return model.encode(sentences)


def count_parameters(model: Any) -> int:
    """Parameters of ``model`` (a module, a ``{lang: module}`` mapping or anything holding modules),
    each tensor counted once even when languages share it.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    seen: dict[int, int] = {}

    def visit(obj: Any, depth: int = 0) -> None:
        if isinstance(obj, torch.nn.Module):
            for p in obj.parameters():
                seen[id(p)] = p.numel()
        elif isinstance(obj, Mapping):
            for value in obj.values():
                visit(value, depth + 1)
        elif depth < 2 and hasattr(obj, "__dict__"):
            for value in vars(obj).values():
                visit(value, depth + 1)

    visit(model)
    return int(sum(seen.values()))


def _check_supervision(supervision: str) -> str:
    parts = [p.strip() for p in supervision.split("+")]
    bad = [p for p in parts if p not in SUPERVISION]
    if not parts or bad:
        raise ValueError(
            f"supervision={supervision!r}: each part joined by '+' must be one of "
            f"{SUPERVISION} (e.g. 'NLI + bitext')."
        )
    return " + ".join(parts)


def encoder_folder(results_dir: str | Path, chapter: str, profile: str, name: str) -> Path:
    """``<results_dir>/<chapter>/<profile>/encoders/<name>``.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"encoder name {name!r} must be a plain folder name such as 'bilstm-max'.")
    return Path(results_dir).expanduser() / chapter / profile / "encoders" / name


def save_encoder(
    run: Run,
    name: str,
    model: Any,
    *,
    training_data: str,
    supervision: str,
    languages: Sequence[str] = ("en",),
    world_seed: int | None = None,
    note: str = "",
) -> Path:
    """Save ``model`` (an encoder with ``encode``, a ``{lang: encoder}`` mapping or a
    :class:`LanguageIdEncoder`) and its card into the run folder of ``run``; return the folder.

    ``supervision`` is one of :data:`SUPERVISION` or several joined by ``+``; ``languages`` are
    those the model reads (a mapping's keys by default order).
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    if isinstance(model, Mapping):
        languages = tuple(model)
        if not languages or not all(hasattr(m, "encode") for m in model.values()):
            raise TypeError(
                "a per-language model must map language codes to encoders with encode()."
            )
    elif not hasattr(model, "encode"):
        raise TypeError(f"{type(model).__name__} has no encode(); pass a sentence encoder.")
    if isinstance(model, LanguageIdEncoder):
        languages = tuple(model.lang_ids)
    if not languages or not all(isinstance(x, str) and x for x in languages):
        raise ValueError(f"languages must be non-empty language codes, got {languages!r}.")
    card = EncoderCard(
        name=name,
        chapter=run.chapter,
        training_data=training_data,
        supervision=_check_supervision(supervision),
        parameters=count_parameters(model),
        languages=tuple(languages),
        profile=run.profile,
        seed=run.seed,
        commit=git_commit(),
        world_seed=world_seed,
        note=note,
        library_hash=library_hash(),
    )
    folder = encoder_folder(run.directory.parent.parent, run.chapter, run.profile, name)
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(model, folder / WEIGHTS)
    (folder / CARD).write_text(json.dumps(card.to_json(), indent=1, sort_keys=True) + "\n")
    return folder


def read_card(folder: str | Path) -> EncoderCard:
    """The card of the encoder saved in ``folder``.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    path = Path(folder) / CARD
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist: no encoder was saved in {folder}.")
    data = json.loads(path.read_text())
    return EncoderCard(**{**data, "languages": tuple(data["languages"])})


def load_encoder(results_dir: str | Path, chapter: str, profile: str, name: str) -> LoadedEncoder:
    """Rebuild the encoder ``name`` that ``chapter`` saved at ``profile`` (see
    :func:`save_encoder`).

    Raises FileNotFoundError naming the chapter to run when it is not there.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    folder = encoder_folder(results_dir, chapter, profile, name)
    if not (folder / WEIGHTS).exists():
        raise FileNotFoundError(
            f"no encoder {name!r} under {folder}: run chapter {chapter} with "
            f"profile={profile!r} and results_dir={str(results_dir)!r} first."
        )
    card = read_card(folder)
    model = _restricted_load(folder / WEIGHTS)
    return LoadedEncoder(card, model, folder)


def _trusted(name: str) -> Any:
    """The class or function ``name`` (``module.attr``) when it belongs to the library, torch or
    numpy.
    """
    module, _, attr = name.rpartition(".")
    if module.split(".")[0] not in TRUSTED_MODULES and name not in TRUSTED_NAMES:
        raise ValueError(
            f"refusing to load {name}: an encoder file holds only objects of xsent_lib, "
            "torch and numpy; this one was not written by save_encoder."
        )
    return getattr(importlib.import_module(module), attr)


def _restricted_load(path: Path) -> Any:
    """``torch.load(weights_only=True)`` that also admits the library's, torch's and numpy's classes
    the file names (and nothing else): the model is rebuilt without running foreign code.
    """
    allowed = [_trusted(n) for n in torch.serialization.get_unsafe_globals_in_checkpoint(path)]
    for _ in range(
        64
    ):  # some names (numpy dtypes) are only met while unpickling: admit them one by one
        try:
            with torch.serialization.safe_globals(allowed):
                return torch.load(path, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as err:
            found = re.search(r"got <class '([\w.]+)'>", str(err)) or re.search(
                r"GLOBAL ([\w.]+) was not", str(err)
            )
            if found is None:
                raise
            allowed.append(_trusted(found.group(1)))
    raise ValueError(
        f"{path}: too many classes to admit; save the encoder again with save_encoder."
    )


def saved_encoders(results_dir: str | Path, profile: str) -> list[EncoderCard]:
    """The cards of every encoder saved under ``results_dir`` at ``profile``, by chapter then name.

    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    root = Path(results_dir).expanduser()
    return [read_card(p.parent) for p in sorted(root.glob(f"*/{profile}/encoders/*/{CARD}"))]


def shipped_card(name: str) -> EncoderCard:
    """The card of shipped encoder ``name`` (``"USE"`` or ``"mE5-small"``): what its model card says
    it
    was trained on; no parameter count (it is no torch model here).
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    if name not in SHIPPED:
        raise ValueError(f"unknown shipped encoder {name!r}; known: {list(SHIPPED)}.")
    info = SHIPPED[name]
    return EncoderCard(
        name=name,
        chapter="shipped",
        training_data=info["training_data"],
        supervision=_check_supervision(info["supervision"]),
        parameters=None,
        languages=tuple(info["languages"]),
        profile="-",
        seed=None,
        commit="-",
        note=f"data cache '{REFERENCE_ENCODERS[name][0]}'",
    )


def shipped_encoder(name: str, cache_dir: str | Path | None = None) -> LoadedEncoder:
    """USE-multilingual (``"USE"``) or mE5-small from the data cache, with its card (loaded, not
    saved).

    Raises FileNotFoundError / ImportError when the data cache lacks it.
    Book: chapter 11 (Reproducibility report: the leaderboard).
    """
    card = shipped_card(name)
    return LoadedEncoder(card, reference_encoder(name, threads=1, cache_dir=cache_dir))
