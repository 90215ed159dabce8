"""Pack the cached datasets some chapters read into one archive, for a machine with no network.

A lent GPU machine gets the working tree and a few carried paths (64 MiB in all), no registry and no
data cache. :func:`pack_datasets` writes the normalised folders (``norm/<dataset>/``) of the
datasets a profile's runs of the chosen chapters read into one ``.tar.xz``, with ``pack.json``
inside naming what went in and what was left out (not cached, or read from its unpacked archive,
which is too large to carry: the chapters fall back without it, as they do on a machine that never
fetched it). :func:`unpack_datasets` lays it out as a data cache. ``xsent-data pack`` and
``benchmarks/run_chapters_on_gpu.sh`` call them.
Book: chapter 0 (How to run this book).
"""

from __future__ import annotations

import json
import os
import tarfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xsent_lib.data.cache import cache_root, norm_dir, read_json
from xsent_lib.data.catalogue import CATALOGUE, Catalogue

MANIFEST = "manifest.json"
PACK_MANIFEST = "pack.json"


def pack_datasets(
    out: str | os.PathLike[str],
    *,
    names: Sequence[str] = (),
    chapters: Sequence[int] = (),
    profile: str = "gpu",
    cache_dir: str | os.PathLike[str] | None = None,
    catalogue: Catalogue = CATALOGUE,
) -> dict[str, Any]:
    """Write ``out`` (a ``.tar.xz``) holding the cached datasets ``names`` and those the catalogue
    lists for ``profile`` runs of ``chapters`` (a superset of what a run reads: a run's
    provenance.json names what it read, under ``cached_datasets``; pass those as ``names`` to carry
    less).

    Returns the pack's manifest: ``datasets`` packed, ``left_out`` (name: why), ``bytes`` (unpacked)
    and the archive's size ``archive_bytes``.
    Book: chapter 0 (How to run this book).
    """
    if not chapters and not names:
        raise ValueError("nothing to pack: give names=[dataset, ...] or chapters=[5, 8, 10].")
    root = cache_root(cache_dir)
    chosen = {
        d.name: d for c in chapters for d in catalogue.select(profile=profile, chapter=int(c))
    }
    chosen.update({d.name: d for d in catalogue.select(names)} if names else {})
    packed: list[str] = []
    left_out: dict[str, str] = {}
    size = 0
    for name, dataset in sorted(chosen.items()):
        folder = norm_dir(name, root)
        if dataset.needs_raw:
            left_out[name] = (
                "read from its unpacked archive (too large to carry); the chapter falls back"
            )
        elif read_json(folder / MANIFEST) is None:
            left_out[name] = f"not in the data cache {root}: run `xsent-data fetch {name}` first"
        else:
            packed.append(name)
            size += sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    manifest = {
        "profile": profile,
        "chapters": sorted(int(c) for c in chapters),
        "datasets": packed,
        "left_out": left_out,
        "bytes": size,
    }
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    listing = path.with_name(PACK_MANIFEST)
    listing.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    with tarfile.open(path, "w:xz") as tar:
        tar.add(listing, arcname=PACK_MANIFEST)
        for name in packed:
            tar.add(norm_dir(name, root), arcname=f"norm/{name}")
    listing.unlink()
    manifest["archive_bytes"] = path.stat().st_size
    return manifest


def unpack_datasets(
    archive: str | os.PathLike[str], cache_dir: str | os.PathLike[str]
) -> dict[str, Any]:
    """Unpack an archive of :func:`pack_datasets` into ``cache_dir`` (a data cache); return its
    manifest.

    Book: chapter 0 (How to run this book).
    """
    target = Path(cache_dir)
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive, "r:xz") as tar:
        bad = [
            m.name
            for m in tar.getmembers()
            if m.name.startswith(("/", ".."))
            or ".." in Path(m.name).parts
            or not (m.isfile() or m.isdir())
        ]
        if bad:
            raise ValueError(
                f"{archive} is not a data pack of xsent-data pack: it holds {bad[:3]}."
            )
        tar.extractall(target, filter="data")
    return json.loads((target / PACK_MANIFEST).read_text())
