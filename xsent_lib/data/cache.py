"""Where fetched data lives: the cache directory, its layout, the manifests, and what is in it.

Layout under the cache root (never inside the repository, never committed)::

    raw/<source>-<version>/      the unpacked archive, plus .xsent-source.json once complete
                                 (with the sha256 of every unpacked file, taken from the verified
                                 archive)
    norm/<dataset>/              the normalised files and manifest.json
    models/                      things trained from the data (e.g. models/wordvecs/)
    tmp/, norm/.xsent-tmp-*      work folders of a fetch in progress (named .xsent-tmp-<pid>-...)
    .xsent-fetch.lock            locked (``flock``) by the fetch in progress, which writes its pid
                                 in it

An unpacked file that no longer matches its recorded sha256 is never normalised: fetch downloads its
archive again (:func:`raw_problem`), and :func:`~xsent_lib.data.fetch.build_dataset` refuses it.
Every normalised file is recorded in its manifest when it is built: its size (``files``) and its
sha256 (``sha256``). Loading checks the sizes every time and the hashes once per process and file
(:func:`verify_dataset`; a file is hashed again when its size, mtime, inode or ctime changed, so
bytes rewritten in place are caught even with the old mtime restored); a damaged file stops the load
with :class:`CorruptCacheError`, naming the file and the command that rebuilds it. ``xsent-data
status`` and ``xsent-data fetch`` hash every file again, and fetch rebuilds what is damaged. Entries
built before checksums were recorded are rebuilt by the next fetch; loading them only warns
(:class:`UncheckedCacheWarning`) since their sizes still match, so a chapter does not stop on data
that was fine yesterday.

The root is, in order: the ``cache_dir`` argument, the environment variable ``XSENT_DATA_CACHE``, or
``platformdirs.user_cache_dir("xsent")`` (``~/.cache/xsent`` on Linux). A fetch holds an exclusive
lock on it (:func:`fetch_lock`): a second fetch of the same cache waits, then finds the data ready.
A root that cannot be created or written stops a fetch with :class:`CacheLocationError` naming it.
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from xsent_lib.data.catalogue import CATALOGUE, Catalogue, Dataset, Source

ENV_VAR = "XSENT_DATA_CACHE"
#: every dataset this process asked the cache for (found or not): provenance.json lists them per
#: chapter run
DATASETS_READ: set[str] = set()
MANIFEST = "manifest.json"
RAW_MARKER = ".xsent-source.json"
FETCH_HINT = "run `xsent-data fetch {name}` (or `make data`) first"
REBUILD_HINT = ("run `xsent-data fetch {name}` to rebuild it (or delete the folder {folder} and "
                "fetch again)")
REFETCH_HINT = "run `xsent-data fetch {name} --force` to download and unpack it again"
TMP_PREFIX = ".xsent-tmp-"
LOCK_FILE = ".xsent-fetch.lock"
_TMP_NAME = re.compile(r"^\.xsent-tmp-(\d+)-")
_PROCESS_STARTED = time.time()


class CorruptCacheError(RuntimeError):
    """A normalised cache file does not match the size or sha256 recorded when it was built.

    Not a FileNotFoundError on purpose: code that skips missing data must not skip damaged data.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


class CacheLocationError(RuntimeError):
    """The cache root cannot be created or written; the message names it and how to choose another
    one.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


class UncheckedCacheWarning(UserWarning):
    """A cache entry was built before checksums were recorded: its sizes were checked, its contents
    not.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


# path -> (size, mtime_ns, inode, ctime_ns) of files whose sha256 matched the manifest in this
# process
_HASHED: dict[str, tuple[int, int, int, int]] = {}
_WARNED: set[str] = set()


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    # ctime: utime cannot set it back
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


def remember_verified(path: Path) -> None:
    """Record that ``path`` was hashed (at build time) so this process does not hash it again
    unchanged.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    _HASHED[str(path)] = _stat_key(path.stat())


def file_problem(folder: Path, manifest: dict[str, object], rehash: bool = False,
                 made: str = "built") -> str | None:
    """What is wrong with the files of a normalised folder against its manifest, or None when they
    match.

    Sizes are compared every call; a file's sha256 is computed only when this process has not yet
    seen it unchanged (same size, mtime, inode and ctime) or when ``rehash``. A manifest without a
    ``sha256`` record (an older build) is checked on sizes only. ``made`` words the message
    ("built", "unpacked").
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    sizes = manifest.get("files")
    hashes = manifest.get("sha256")
    sizes = sizes if isinstance(sizes, dict) else {}
    hashes = hashes if isinstance(hashes, dict) else {}
    for name in sorted(set(sizes) | set(hashes)):
        path = folder / name
        try:
            st = path.stat()
        except OSError:
            return f"file {path} is missing"
        if name in sizes and st.st_size != sizes[name]:
            return (f"file {path} has {st.st_size} bytes, {sizes[name]} when it was {made} "
                    "(truncated or overwritten)")
        if name in hashes:
            if not rehash and _HASHED.get(str(path)) == _stat_key(st):
                continue
            if sha256_of(path) != hashes[name]:
                _HASHED.pop(str(path), None)
                return (f"file {path} does not match the sha256 recorded when it was {made} "
                        "(its bytes changed)")
            _HASHED[str(path)] = _stat_key(st)
    return None


def verify_dataset(name: str, folder: Path, manifest: dict[str, object]) -> None:
    """Raise CorruptCacheError when a file of dataset ``name`` does not match its manifest; warn on
    old entries.

    The message names the file and how to rebuild it. An entry without checksums (built by an older
    version) gets one :class:`UncheckedCacheWarning` per process.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    problem = file_problem(folder, manifest)
    if problem is not None:
        raise CorruptCacheError(f"dataset {name!r} in the data cache is damaged: {problem}; "
                                f"{REBUILD_HINT.format(name=name, folder=folder)}.")
    if not isinstance(manifest.get("sha256"), dict) and str(folder) not in _WARNED:
        _WARNED.add(str(folder))
        warnings.warn(f"dataset {name!r} was built by an older xsent that recorded no checksums: "
                      "its file sizes were checked, not its contents; "
                      f"{REBUILD_HINT.format(name=name, folder=folder)} with checksums.",
                      UncheckedCacheWarning, stacklevel=3)


def make_temp_dir(parent: Path, name: str) -> Path:
    """Create a work folder ``parent/.xsent-tmp-<pid>-<name>-XXXX`` that :func:`clean_stale_temp`
    can recognise.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{os.getpid()}-{name}-", dir=parent))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    except OSError:
        return False
    return True


def clean_stale_temp(root: Path) -> list[Path]:
    """Delete the work folders a killed fetch left in ``root/tmp`` and ``root/norm``; return what
    was removed.

    Only folders named ``.xsent-tmp-<pid>-...`` are considered, and only those older than this
    process whose ``pid`` is no longer running (or is this process, i.e. a recycled pid): a fetch
    running in parallel keeps its folders. Everything else is left alone.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    removed = []
    for parent in (root / "tmp", root / "norm"):
        if not parent.is_dir():
            continue
        for entry in parent.iterdir():
            match = _TMP_NAME.match(entry.name)
            if match is None or entry.is_symlink() or not entry.is_dir():
                continue
            pid = int(match.group(1))
            if entry.stat().st_mtime >= _PROCESS_STARTED or (pid != os.getpid()
                                                             and _pid_alive(pid)):
                continue
            shutil.rmtree(entry, ignore_errors=True)
            removed.append(entry)
    return removed


def remove_path(path: Path) -> None:
    """Remove a cache folder, or the file or link found where a cache folder should be; nothing if
    absent.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()


def _not_a_folder(folder: Path) -> str | None:
    """The problem of something that is not a folder where a dataset's folder should be, or None."""
    if os.path.lexists(folder) and not folder.is_dir():
        return f"{folder} is a file, not a folder"
    return None


def cache_root(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Return the cache root: ``cache_dir``, else ``$XSENT_DATA_CACHE``, else the user cache dir for
    ``xsent``.

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


def _unusable(root: Path, why: str) -> CacheLocationError:
    return CacheLocationError(f"the data cache folder {root} {why}: set {ENV_VAR} to a writable "
                              "folder (or pass --cache-dir / cache_dir=) and fetch again.")


def writable_root(root: Path) -> None:
    """Create the cache root if needed; raise :class:`CacheLocationError` naming it when it cannot
    be written.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _unusable(root, f"cannot be created ({exc.strerror or exc})") from exc
    if not os.access(root, os.W_OK | os.X_OK):
        raise _unusable(root, "is not writable")


@contextmanager
def fetch_lock(root: Path, waiting: Callable[[str], None]) -> Iterator[None]:
    """Hold the exclusive lock of the cache ``root`` (``flock`` on ``.xsent-fetch.lock``) for one
    fetch.

    The root is checked first (:func:`writable_root`). When another fetch holds the lock,
    ``waiting`` is told so with its pid, and this one waits until it is done. The lock goes with the
    process, so a killed fetch never leaves the cache locked.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    writable_root(root)
    try:
        fh = (root / LOCK_FILE).open("a+", encoding="utf-8")
    except OSError as exc:
        raise _unusable(root, f"cannot hold a lock file ({exc.strerror or exc})") from exc
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            waiting(f"waiting for another fetch (pid {fh.read().strip() or '?'}) to finish with "
                    f"the data cache {root}")
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.truncate(0)
        fh.write(str(os.getpid()))  # "a+" appends: at 0 after the truncation
        fh.flush()
        try:
            yield
        finally:
            fh.truncate(0)
            fcntl.flock(fh, fcntl.LOCK_UN)


def raw_dir(source: Source, root: Path) -> Path:
    """The folder an archive is unpacked into: ``raw/<name>-<version>`` (``:`` in Debian epochs
    becomes ``_``).

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
    """Read a JSON object, or return None when the file is missing or unreadable (a half-written
    cache entry).

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
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def raw_is_complete(source: Source, root: Path) -> bool:
    """Whether ``source`` is unpacked in the cache from an archive with the pinned sha256.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    marker = read_json(raw_dir(source, root) / RAW_MARKER)
    return marker is not None and marker.get("sha256") == source.sha256


def tree_sha256(folder: Path) -> dict[str, str]:
    """Relative path -> sha256 of every regular file under ``folder`` (links not followed, the
    marker left out).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    hashes = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_symlink() and path.is_file() and path != folder / RAW_MARKER:
            hashes[path.relative_to(folder).as_posix()] = sha256_of(path)
    return hashes


def raw_problem(folder: Path, rehash: bool = False, unchecked: bool = True) -> str | None:
    """What is wrong with an unpacked archive against the per-file sha256 of its marker, or None
    when it matches.

    A folder whose files cannot be checked (no marker: not unpacked by fetch; or a marker written
    before per-file checksums were recorded) is a problem when ``unchecked``, and passes otherwise.
    Hashes are remembered per process as for normalised files (:func:`file_problem`), unless
    ``rehash``.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    files = (read_json(folder / RAW_MARKER) or {}).get("files")
    if not isinstance(files, dict):
        return (f"{folder} has no per-file checksums (unpacked by an older xsent, or by hand)"
                if unchecked else None)
    problem = file_problem(folder, {"sha256": files}, rehash=rehash, made="unpacked")
    return None if problem is None else f"its unpacked {problem}"


def expected_sources(dataset: Dataset, catalogue: Catalogue) -> dict[str, str]:
    """Source name -> pinned sha256 for a dataset: what its manifest must record to be up to date.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return {name: catalogue.sources[name].sha256 for name in dataset.sources}


def dataset_problem(dataset: Dataset, root: Path, format_version: int,
                    catalogue: Catalogue = CATALOGUE, rehash: bool = False) -> str | None:
    """Why ``dataset`` must be (re)built, or None when its normalised files are ready and intact.

    Ready means: built from the pinned archives by this format version, every file of the manifest
    matching its recorded size and sha256 (hashed once per process, or now when ``rehash``), and
    checksums recorded at all.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    folder = norm_dir(dataset.name, root)
    wrong = _not_a_folder(folder)
    if wrong is not None:
        return f"damaged: {wrong}"
    manifest = read_json(folder / MANIFEST)
    if manifest is None:
        return "not built yet"
    if manifest.get("sources") != expected_sources(dataset, catalogue):
        return "built from other archives"
    if manifest.get("format_version") != format_version:
        return f"built by format version {manifest.get('format_version')}, now {format_version}"
    if dataset.needs_raw:  # read from raw/ when loaded: its unpacked files must be intact too
        missing = [s for s in dataset.sources if not raw_is_complete(catalogue.sources[s], root)]
        if missing:
            return f"missing its unpacked source(s) {', '.join(missing)}"
        # an older unpacking without checksums is still used, until a rebuild needs it
        for s in dataset.sources:
            problem = raw_problem(raw_dir(catalogue.sources[s], root), rehash=rehash,
                                  unchecked=False)
            if problem is not None:
                return f"damaged: source {s}: {problem}"
    problem = file_problem(folder, manifest, rehash=rehash)
    if problem is not None:
        return f"damaged: {problem}"
    if not isinstance(manifest.get("sha256"), dict):
        return "built by an older version without checksums"
    return None


def dataset_is_ready(dataset: Dataset, root: Path, format_version: int,
                     catalogue: Catalogue = CATALOGUE) -> bool:
    """Whether the normalised files of ``dataset`` exist, are intact, and were built from the pinned
    archives by this format version.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    return dataset_problem(dataset, root, format_version, catalogue) is None


def require_dataset(name: str, cache_dir: str | os.PathLike[str] | None = None,
                    catalogue: Catalogue = CATALOGUE) -> Path:
    """Return the verified normalised folder of dataset ``name``, or raise FileNotFoundError saying
    how to fetch it.

    The files are checked against the manifest first (:func:`verify_dataset`): a damaged file, or a
    file where the dataset's folder should be, raises :class:`CorruptCacheError` naming it and the
    command that rebuilds it.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    catalogue.dataset(name)
    DATASETS_READ.add(name)
    root = cache_root(cache_dir)
    folder = norm_dir(name, root)
    wrong = _not_a_folder(folder)
    if wrong is not None:
        raise CorruptCacheError(f"dataset {name!r} in the data cache is damaged: {wrong}; run "
                                f"`xsent-data fetch {name}` to replace it with the dataset (fetch "
                                "removes the file).")
    manifest = read_json(folder / MANIFEST)
    if manifest is None:
        raise FileNotFoundError(
            f"dataset {name!r} is not in the data cache {root}: {FETCH_HINT.format(name=name)}. "
            f"(Set {ENV_VAR} or pass cache_dir= to use another cache.)")
    verify_dataset(name, folder, manifest)
    return folder


def dir_size(path: Path, seen: set[tuple[int, int]] | None = None) -> int:
    """Total bytes of the regular files under ``path`` (0 when it does not exist); links are not
    followed.

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
    """One dataset as the cache holds it: whether it is ready, its normalised size and its
    statistics.

    ``problem`` is empty, or says which file does not have the size or sha256 recorded when it was
    built (``ready`` keeps meaning "built from the pinned archives", so a damaged entry is not
    silently skipped as absent: loading it raises :class:`CorruptCacheError`).
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    name: str
    kind: str
    ready: bool
    norm_bytes: int
    stats: dict[str, object]
    problem: str = ""


def cache_status(cache_dir: str | os.PathLike[str] | None = None, catalogue: Catalogue = CATALOGUE,
                 contents: bool = True) -> tuple[Path, list[CacheEntry], int]:
    """Every catalogue dataset found in the cache, and the bytes the raw unpacked archives take.

    Returns ``(root, entries, raw_bytes)``; datasets never fetched are left out. With ``contents``
    (what ``xsent-data status`` shows) every file is hashed again, not trusted from an earlier check
    in this process, so a changed byte shows as a problem even when the size and mtime were kept;
    without it only the sizes are compared, at once (for tables that only list what is cached). A
    hard-linked file counts once, with the first dataset that holds it.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    root = cache_root(cache_dir)
    entries, seen = [], set()
    for d in catalogue.datasets.values():
        folder = norm_dir(d.name, root)
        wrong = _not_a_folder(folder)
        if wrong is not None:
            entries.append(CacheEntry(d.name, d.kind, False, 0, {}, wrong))
            continue
        manifest = read_json(folder / MANIFEST)
        if manifest is None:
            continue
        ready = manifest.get("sources") == expected_sources(d, catalogue)
        stats = manifest.get("stats")
        checked = manifest if contents else {"files": manifest.get("files")}
        problem = file_problem(folder, checked, rehash=True) or ""
        entries.append(CacheEntry(d.name, d.kind, ready, dir_size(folder, seen),
                                  stats if isinstance(stats, dict) else {}, problem))
    return root, entries, dir_size(root / "raw", seen)
