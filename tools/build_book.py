"""Build the book with an execution cache keyed on the library, so a page never shows stale outputs.

Jupyter Book's cache notices only changes to a notebook's cells. Here the cache folder is named after
a hash of ``xsent_lib/``, ``requirements.txt`` and the profile: change any of them and every chapter
re-executes; change nothing and the build reuses the executed notebooks. The footer of every page
states the library version, commit and hash that produced it.

Usage: ``python tools/build_book.py [--profile book] [--out DIR] [--force]`` (``make book`` calls it); the
HTML goes to ``DIR/_build/html`` (DIR defaults to the repository root).
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import xsent_lib  # noqa: E402
from xsent_lib.results.provenance import git_commit, library_hash  # noqa: E402


def cache_key(profile: str) -> str:
    h = hashlib.sha256()
    h.update(library_hash().encode())
    h.update((ROOT / "requirements.txt").read_bytes())
    h.update(profile.encode())
    return h.hexdigest()[:16]


def write_config(profile: str, out: Path, force: bool) -> Path:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    key = cache_key(profile)
    execute = config.setdefault("execute", {})
    execute["execute_notebooks"] = "force" if force else "cache"
    execute["cache"] = str(out / "_build" / ".jupyter_cache" / f"{profile}-{key}")
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
                        choices=["smoke", "book", "full"])
    parser.add_argument("--out", default=str(ROOT), help="output folder; the HTML goes to OUT/_build/html")
    parser.add_argument("--force", action="store_true", help="re-execute every chapter, ignoring the cache")
    args = parser.parse_args()
    out = Path(args.out).resolve()
    config = write_config(args.profile, out, args.force)
    env = dict(os.environ, XSENT_PROFILE=args.profile)
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", str(ROOT), "--config", str(config), "--path-output", str(out),
           "--builder", "html", "-W", "-n", "--keep-going"]
    print("+", " ".join(cmd), flush=True)
    start = time.perf_counter()
    code = subprocess.call(cmd, env=env, cwd=ROOT)
    print(f"book: profile {args.profile}, exit {code}, {time.perf_counter() - start:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
