"""Build the book, re-executing only the chapters whose inputs changed, so a page never shows stale
outputs.

Each chapter's execution is keyed on what that chapter actually used, recorded by the run itself:
the ``xsent_lib`` modules it imported with their sha256 (``library_modules`` in its provenance.json,
written by ``ch.finish()``), plus its own code cells, ``requirements.txt``, the profile and
``data_dir``. A chapter that reads the other chapters' results (chapter 11) is also keyed on their
keys. A change to ``viz/muse.py`` re-executes chapter 5 only.

Steps: (1) execute every stale chapter here, one after the other, each in a fresh kernel, through
``tools/nbexec.py`` (papermill on an nbclient that cannot stall on ipywidgets cells; per-cell
timeout from ``_config.yml``), printing each chapter's wall time; the executed notebook and its key
go to ``OUT/_build/exec/<profile>/``; (2) stage the sources (book/, _toc.yml, the executed
notebooks) in ``OUT/_build/stage/<profile>/`` and run ``jupyter-book build`` on them with
``execute_notebooks: off`` and ``-W -n --keep-going``. The footer of every page states the library
version, commit and hash.

Usage: ``python tools/build_book.py [--profile book] [--out DIR] [--force]
[--chapters 00_how_to_run,05_muse] [--no-html] [--data-dir DIR]`` (``make book`` calls it); the HTML
goes to ``DIR/_build/html``.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import xsent_lib  # noqa: E402
from xsent_lib.results.provenance import git_commit, library_hash  # noqa: E402

LIB = ROOT / "xsent_lib"
#: a chapter whose code calls one of these reads the other chapters' results: it is keyed on their
#: keys too
READS_RESULTS = ("collect_runs(", "collect_claims(", "load_metrics(")


def toc_chapters(root: Path = ROOT) -> list[str]:
    """The notebooks of ``_toc.yml`` in reading order, as stems (``00_how_to_run``)."""
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            file = node.get("file")
            if isinstance(file, str) and file.startswith("notebooks/"):
                found.append(Path(file).stem)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load((root / "_toc.yml").read_text()))
    return found


def code_of(nb_path: Path) -> list[str]:
    return [c.source for c in nbformat.read(nb_path, as_version=4).cells if c.cell_type == "code"]


def file_sha(rel: str) -> str:
    path = LIB / rel
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "missing"


def data_fingerprint(data_dir: str | None) -> str:
    """What is in ``data_dir`` now: sha256 over every file's relative path, size and mtime (not the
    contents, so a 5 GB file costs nothing); adding, removing or replacing a data set there
    re-executes the chapters."""
    if not data_dir or not Path(data_dir).is_dir():
        return "none"
    h = hashlib.sha256()
    root = Path(data_dir)
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        stat = path.stat()
        h.update(
            f"{path.relative_to(root).as_posix()}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return h.hexdigest()[:16]


def chapter_key(stem: str, profile: str, data_dir: str | None, modules: list[str],
                upstream: dict[str, str]) -> str:
    """sha256 over the chapter's code cells, requirements.txt, profile, data_dir (and what it
    holds), its library modules' files as they are now, and (chapters reading results) the keys of
    the chapters it reads."""
    h = hashlib.sha256()
    h.update(json.dumps(code_of(ROOT / "notebooks" / f"{stem}.ipynb")).encode())
    h.update((ROOT / "requirements.txt").read_bytes())
    h.update(f"profile={profile}\0data_dir={data_dir}\0{data_fingerprint(data_dir)}\0".encode())
    for rel in sorted(modules):
        h.update(f"{rel}\0{file_sha(rel)}\0".encode())
    for name in sorted(upstream):
        h.update(f"{name}\0{upstream[name]}\0".encode())
    return h.hexdigest()[:20]


def reads_results(stem: str) -> bool:
    return any(marker in src for src in code_of(ROOT / "notebooks" / f"{stem}.ipynb")
               for marker in READS_RESULTS)


def execute_stale(chapters: list[str], selected: set[str], profile: str, out: Path,
                  data_dir: str | None, timeout: int, force: bool,
                  jobs: int = 1) -> tuple[dict[str, str], list[str]]:
    """Execute the stale chapters of ``selected``; return
    {stem: 'executed'|'reused'|'failed'|'skipped'} and failures.

    ``jobs`` > 1 runs that many chapters at once, each kernel on ``cores // jobs`` threads
    (``OMP_NUM_THREADS``); a chapter that reads the others' results runs after all of them."""
    exec_dir = out / "_build" / "exec" / profile
    exec_dir.mkdir(parents=True, exist_ok=True)
    os.environ["XSENT_PROFILE"] = profile
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT),
                                                *filter(None, [os.environ.get("PYTHONPATH")])])
    if jobs > 1:
        os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // jobs))
    status: dict[str, str] = {}
    keys: dict[str, str] = {}
    failed: list[str] = []

    def run(stem: str) -> None:
        record_path = exec_dir / f"{stem}.key.json"
        record = json.loads(record_path.read_text()) if record_path.exists() else None
        upstream = {c: keys.get(c, "none") for c in chapters
                    if c != stem} if reads_results(stem) else {}
        if upstream:  # runs committed under book/runs are read too: adding one refreshes the report
            upstream["book/runs"] = data_fingerprint(str(ROOT / "book" / "runs"))
        if stem not in selected:
            status[stem] = "skipped"
            keys[stem] = record["key"] if record else "none"
            return
        key_now = chapter_key(stem, profile, data_dir, record["library_modules"],
                              upstream) if record else None
        executed = exec_dir / f"{stem}.ipynb"
        if not force and record and record["key"] == key_now and executed.exists():
            status[stem], keys[stem] = "reused", key_now
            print(f"chapter {stem}: up to date (key {key_now}), reused", flush=True)
            return
        status[stem], keys[stem] = execute_one(stem, profile, out, data_dir, timeout, upstream)
        if status[stem] == "failed":
            failed.append(stem)

    later = [stem for stem in chapters if reads_results(stem)]
    first = [stem for stem in chapters if stem not in later]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(run, first))
    for stem in later:
        run(stem)
    (exec_dir / "last_build.json").write_text(
        json.dumps({stem: status[stem] for stem in chapters}, indent=1))
    return {stem: status[stem] for stem in chapters}, failed


def execute_one(stem: str, profile: str, out: Path, data_dir: str | None, timeout: int,
                upstream: dict[str, str]) -> tuple[str, str]:
    """Execute one chapter in a fresh kernel and record its key; return (status, key)."""
    from nbexec import execute_notebook

    exec_dir = out / "_build" / "exec" / profile
    results = out / "_build" / "results"
    record_path = exec_dir / f"{stem}.key.json"
    executed = exec_dir / f"{stem}.ipynb"
    params: dict[str, object] = {"results_dir": str(results)}
    if data_dir:
        params["data_dir"] = data_dir
    start = time.perf_counter()
    print(f"chapter {stem}: executing (profile {profile})", flush=True)
    try:
        execute_notebook(str(ROOT / "notebooks" / f"{stem}.ipynb"), str(executed),
                         parameters=params, cwd=str(ROOT / "notebooks"), timeout=timeout)
    except Exception as exc:  # a failing chapter fails the build, loudly, after the others ran
        print(f"chapter {stem}: FAILED after {time.perf_counter() - start:.0f} s: "
              f"{type(exc).__name__}: {str(exc)[-3000:]}", flush=True)
        record_path.unlink(missing_ok=True)
        return "failed", "failed"
    prov_path = results / stem / profile / "provenance.json"
    prov = json.loads(prov_path.read_text()) if prov_path.exists() else {}
    modules = sorted(prov.get("library_modules")
                     or [p.relative_to(LIB).as_posix() for p in LIB.rglob("*.py")])
    key = chapter_key(stem, profile, data_dir, modules, upstream)
    record_path.write_text(json.dumps({"key": key, "profile": profile,
                                       "data_dir": data_dir, "library_modules": modules,
                                       "upstream": upstream,
                                       "wall_time_s": round(time.perf_counter() - start, 1)},
                                      indent=1))
    print(f"chapter {stem}: executed in {time.perf_counter() - start:.0f} s, CPU (kernel and "
          f"workers) {prov.get('cpu_time_s', float('nan')):.0f} s, load "
          f"{os.getloadavg()[0]:.1f} (key {key})", flush=True)
    return "executed", key


def stage_sources(chapters: list[str], profile: str, out: Path) -> Path:
    """Copy what jupyter-book reads into OUT/_build/stage/<profile>/: book/, _toc.yml, the executed
    notebooks."""
    stage = out / "_build" / "stage" / profile
    if stage.exists():
        shutil.rmtree(stage)
    (stage / "notebooks").mkdir(parents=True)
    shutil.copytree(ROOT / "book", stage / "book")
    shutil.copy2(ROOT / "_toc.yml", stage / "_toc.yml")
    exec_dir = out / "_build" / "exec" / profile
    for stem in chapters:
        executed = exec_dir / f"{stem}.ipynb"
        shutil.copy2(executed if executed.exists() else ROOT / "notebooks" / f"{stem}.ipynb",
                     stage / "notebooks" / f"{stem}.ipynb")
    return stage


def write_config(profile: str, out: Path) -> Path:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    # executed above, chapter by chapter
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    config.setdefault("html", {})["extra_footer"] = (
        f"<p>Outputs computed with xsent_lib {xsent_lib.__version__} · commit {git_commit()} · "
        f"library hash {library_hash()} · profile <code>{profile}</code>.</p>")
    target = out / "_build" / "config" / "_config.yml"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, sort_keys=False))
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default=os.environ.get("XSENT_PROFILE", "book"),
                        choices=["smoke", "book", "gpu", "full"])
    parser.add_argument("--out", default=str(ROOT),
                        help="output folder; the HTML goes to OUT/_build/html")
    parser.add_argument("--force", action="store_true",
                        help="re-execute every chapter, ignoring the keys")
    parser.add_argument("--chapters", default="",
                        help="comma-separated stems to execute (default: all of _toc.yml)")
    parser.add_argument("--no-html", action="store_true",
                        help="execute only, do not run jupyter-book")
    parser.add_argument("--data-dir", default=os.environ.get("XSENT_DATA_DIR") or None)
    parser.add_argument("--jobs", type=int, default=1,
                        help="chapters executed at once, each on cores/jobs threads (default 1)")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    out = Path(args.out).resolve()
    data_dir = str(Path(args.data_dir).resolve()) if args.data_dir else None
    config_timeout = int((yaml.safe_load((ROOT / "_config.yml").read_text()).get("execute")
                          or {}).get("timeout", 3600))
    chapters = toc_chapters()
    selected = set(args.chapters.split(",")) if args.chapters else set(chapters)
    unknown = selected - set(chapters)
    if unknown:
        parser.error(f"not chapters of _toc.yml: {sorted(unknown)}")
    start = time.perf_counter()
    status, failed = execute_stale(chapters, selected, args.profile, out, data_dir, config_timeout,
                                   args.force, args.jobs)
    print("chapters: " + ", ".join(f"{k} {v}" for k, v in status.items()), flush=True)
    if failed:
        print(f"book: profile {args.profile}, chapters failed: {failed}", flush=True)
        return 1
    if args.no_html:
        return 0
    stage = stage_sources(chapters, args.profile, out)
    config = write_config(args.profile, out)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(stage), "--config", str(config), "--path-output", str(out),
           "--builder", "html", "-W", "-n", "--keep-going"]
    print("+", " ".join(cmd), flush=True)
    code = subprocess.call(cmd, env=dict(os.environ, XSENT_PROFILE=args.profile), cwd=stage)
    print(f"book: profile {args.profile}, exit {code}, {time.perf_counter() - start:.0f} s",
          flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
