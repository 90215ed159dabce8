"""Where fetched data lives: the cache directory, its layout, the manifests, and what is in it.

Layout under the cache root (never inside the repository, never committed)::

    raw/<source>-<version>/      the unpacked archive, plus .xsent-source.json once complete
    norm/<dataset>/              the normalised files and manifest.json
    models/                      things trained from the data (e.g. models/wordvecs/)

The root is, in order: the ``cache_dir`` argument, the environment variable ``XSENT_DATA_CACHE``,
or ``platformdirs.user_cache_dir("xsent")`` (``~/.cache/xsent`` on Linux).
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.catalogue import CATALOGUE, Catalogue, Dataset, Source

ENV_VAR = "XSENT_DATA_CACHE"
MANIFEST = "manifest.json"
RAW_MARKER = ".xsent-source.json"
FETCH_HINT = "run `xsent-data fetch {name}` (or `make data`) first"


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the cache root: ``cache_dir``, else ``$XSENT_DATA_CACHE``, else the user cache dir for ``xsent``.

    The directory is not created here; fetching creates it.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if cache_dir is not None:
        return Path(cache_dir).expanduser().resolve()
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser().resolve()
    try:
        from platformdirs import user_cache_dir
    except ImportError:  # platformdirs is optional: fall back to the XDG convention
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
        return Path(base) / "xsent"
    return Path(user_cache_dir("xsent"))


def raw_dir(source: Source, root: Path) -> Path:
    """The folder an archive is unpacked into: ``raw/<name>-<version>`` (``:`` in Debian epochs becomes ``_``).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return root / "raw" / f"{source.name}-{source.version.replace(':', '_')}"


def norm_dir(dataset: str, root: Path) -> Path:
    """The folder holding the normalised files of ``dataset``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return root / "norm" / dataset


def models_dir(root: Path, kind: str) -> Path:
    """The folder for models trained from cached data, e.g. ``models/wordvecs``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return root / "models" / kind


def read_json(path: Path) -> dict[str, object] | None:
    """Read a JSON object, or return None when the file is missing or unreadable (a half-written cache entry).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, object]) -> None:
    """Write a JSON object atomically (temporary file, then rename).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def raw_is_complete(source: Source, root: Path) -> bool:
    """Whether ``source`` is unpacked in the cache from an archive with the pinned sha256.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    marker = read_json(raw_dir(source, root) / RAW_MARKER)
    return marker is not None and marker.get("sha256") == source.sha256


def expected_sources(dataset: Dataset, catalogue: Catalogue) -> dict[str, str]:
    """Source name -> pinned sha256 for a dataset: what its manifest must record to be up to date.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return {name: catalogue.sources[name].sha256 for name in dataset.sources}


def dataset_is_ready(dataset: Dataset, root: Path, format_version: int,
                     catalogue: Catalogue = CATALOGUE) -> bool:
    """Whether the normalised files of ``dataset`` exist and were built from the pinned archives by this format version.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    manifest = read_json(norm_dir(dataset.name, root) / MANIFEST)
    if manifest is None:
        return False
    if manifest.get("sources") != expected_sources(dataset, catalogue):
        return False
    if manifest.get("format_version") != format_version:
        return False
    if dataset.needs_raw:
        return all(raw_is_complete(catalogue.sources[s], root) for s in dataset.sources)
    return True


def require_dataset(name: str, cache_dir: str | os.PathLike[str] | None = None,
                    catalogue: Catalogue = CATALOGUE) -> Path:
    """Return the normalised folder of dataset ``name``, or raise FileNotFoundError saying how to fetch it.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    catalogue.dataset(name)
    root = cache_root(cache_dir)
    folder = norm_dir(name, root)
    if read_json(folder / MANIFEST) is None:
        raise FileNotFoundError(
            f"dataset {name!r} is not in the data cache {root}: {FETCH_HINT.format(name=name)}. "
            f"(Set {ENV_VAR} or pass cache_dir= to use another cache.)")
    return folder


def dir_size(path: Path, seen: set[tuple[int, int]] | None = None) -> int:
    """Total bytes of the regular files under ``path`` (0 when it does not exist); links are not followed.

    With ``seen``, a file hard-linked elsewhere (GloVe's vectors are linked from ``raw/`` into
    ``norm/``) is counted only the first time its inode is met, so sizes add up to the disk used.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if not path.exists():
        return 0
    total = 0
    for p in path.rglob("*"):
        if p.is_symlink() or not p.is_file():
            continue
        st = p.lstat()
        if seen is not None:
            if (st.st_dev, st.st_ino) in seen:
                continue
            seen.add((st.st_dev, st.st_ino))
        total += st.st_size
    return total


@dataclass(frozen=True)
class CacheEntry:
    """One dataset as the cache holds it: whether it is ready, its normalised size and its statistics.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    name: str
    kind: str
    ready: bool
    norm_bytes: int
    stats: dict[str, object]


def cache_status(cache_dir: str | os.PathLike[str] | None = None,
                 catalogue: Catalogue = CATALOGUE) -> tuple[Path, list[CacheEntry], int]:
    """Every catalogue dataset found in the cache, and the bytes the raw unpacked archives take.

    Returns ``(root, entries, raw_bytes)``; datasets never fetched are left out. A hard-linked file
    counts once, with the first dataset that holds it.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    root = cache_root(cache_dir)
    entries, seen = [], set()
    for d in catalogue.datasets.values():
        folder = norm_dir(d.name, root)
        manifest = read_json(folder / MANIFEST)
        if manifest is None:
            continue
        ready = manifest.get("sources") == expected_sources(d, catalogue)
        stats = manifest.get("stats")
        entries.append(CacheEntry(d.name, d.kind, ready, dir_size(folder, seen),
                                  stats if isinstance(stats, dict) else {}))
    return root, entries, dir_size(root / "raw", seen)
