"""Vendor the book's JavaScript (MathJax 3, require.js, the ipywidgets HTML manager) from the npm
registry.

Jupyter Book 1 pages load these from CDNs by default, so an offline reader sees raw LaTeX and no
widgets. This script fetches pinned tarballs with ``npm pack``, checks their sha256, and unpacks the
files the pages need into ``book/_assets/vendor/`` (git-ignored; not ``_static/``, whose every .js
would be injected into every page). Run by ``make book``; a second run is a no-op.
"""
from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "book" / "_assets" / "vendor"

# (npm spec, sha256 of the tarball, {path inside the package: path under vendor/})
PACKAGES = [
    ("mathjax@3.2.2", "1b9c0a1c44df864e915690558e72adb9cc5203360daefd385084ced3b6c64c09",
     {"package/es5": "mathjax/es5", "package/LICENSE": "mathjax/LICENSE"}),
    ("requirejs@2.3.7", "31f3330c978fb28684622fe71165dc946432cf0210b2ea8a1ca0233e70f2737d",
     {"package/require.js": "require.js"}),
    ("@jupyter-widgets/html-manager@1.0.6",
     "6c198ceb99ba7e7526990a1de16e8147ad7d3a714e3fb06741183623c04b5f6e",
     {"package/dist": "widgets", "package/LICENSE": "widgets/LICENSE"}),
]
STAMP = VENDOR / ".stamp"


def _stamp_text() -> str:
    return "\n".join(f"{spec} {sha}" for spec, sha, _ in PACKAGES) + "\n"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def vendor(force: bool = False) -> None:
    if not force and STAMP.exists() and STAMP.read_text() == _stamp_text():
        print(f"vendor: {VENDOR.relative_to(ROOT)} is up to date")
        return
    if shutil.which("npm") is None:
        sys.exit("vendor: `npm` is not installed. Install Node.js/npm (Debian: `apt-get install "
                 "npm`) so the book's MathJax and widget scripts can be fetched from the npm "
                 "registry; without them an offline reader sees raw LaTeX and no widgets.")
    if VENDOR.exists():
        shutil.rmtree(VENDOR)
    VENDOR.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        for spec, sha, files in PACKAGES:
            proc = subprocess.run(["npm", "pack", spec, "--silent"], cwd=tmp, capture_output=True,
                                  text=True)
            if proc.returncode != 0:
                sys.exit(f"vendor: `npm pack {spec}` failed:\n{proc.stderr.strip()}")
            tarball = Path(tmp) / proc.stdout.strip().splitlines()[-1]
            got = _sha256(tarball)
            if got != sha:
                sys.exit(f"vendor: checksum mismatch for {spec}: expected {sha}, got {got}. "
                         "The registry served a different file; refusing to use it.")
            with tarfile.open(tarball) as tar:
                tar.extractall(Path(tmp) / spec.replace("/", "_"), filter="data")
            for src, dst in files.items():
                source = Path(tmp) / spec.replace("/", "_") / src
                target = VENDOR / dst
                target.parent.mkdir(parents=True, exist_ok=True)
                if source.is_dir():
                    shutil.copytree(source, target, dirs_exist_ok=True,
                                    ignore=shutil.ignore_patterns("*.map"))
                else:
                    shutil.copy2(source, target)
            print(f"vendor: {spec} ok ({got[:12]})")
    STAMP.write_text(_stamp_text())


if __name__ == "__main__":
    vendor(force="--force" in sys.argv)
