"""Report what a bare machine has for the chapters, and unpack carried wheels for what it lacks.

``benchmarks/run_chapters_on_gpu.sh`` calls it first: it prints the Python, torch, CUDA and GPU,
checks the modules the chapters import (requirements.txt's runtime packages) and, for each one
missing, unpacks a carried wheel (``--wheels``, default ``.whl/``) that fits this interpreter into
``--site`` (added to PYTHONPATH by the script). No pip or network needed: a wheel is a zip file. A
needed module that is still missing is named (the chapters that import it will fail there); the exit
status is 1 only when torch or numpy is missing, 0 otherwise.

    python tools/offline_env.py --wheels .whl --site /tmp/xsent-site
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import re
import sys
import zipfile
from pathlib import Path

#: module -> wheel distribution name (as in a wheel's file name) of what the chapters import
MODULES = {
    "numpy": "numpy",
    "torch": "torch",
    "scipy": "scipy",
    "pandas": "pandas",
    "matplotlib": "matplotlib",
    "seaborn": "seaborn",
    "sklearn": "scikit_learn",
    "sentencepiece": "sentencepiece",
    "gensim": "gensim",
    "smart_open": "smart_open",
    "wrapt": "wrapt",
    "sacrebleu": "sacrebleu",
    "yaml": "PyYAML",
    "tqdm": "tqdm",
    "threadpoolctl": "threadpoolctl",
    "pyarrow": "pyarrow",
    "platformdirs": "platformdirs",
    "faiss": "faiss_cpu",
}
#: optional: the library falls back without them
OPTIONAL = {"faiss", "platformdirs"}
WHEEL = re.compile(
    r"^(?P<dist>[^-]+)-(?P<ver>[^-]+)(-\d[^-]*)?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$"
)


def fits(py: str, abi: str, plat: str) -> bool:
    """Whether a wheel's tags fit this interpreter (x86-64 Linux, CPython)."""
    ours = f"cp{sys.version_info.major}{sys.version_info.minor}"
    py_ok = any(t in (ours, "py3", f"py{sys.version_info.major}") for t in py.split("."))
    abi_ok = any(t in ("none", ours, "abi3") for t in abi.split("."))
    plat_ok = any(t == "any" or (t.endswith("x86_64") and "linux" in t) for t in plat.split("."))
    return py_ok and abi_ok and (plat_ok if platform.machine() == "x86_64" else "any" in plat)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wheels", default=".whl")
    parser.add_argument("--site", default="/tmp/xsent-site")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} ({sys.executable}), {platform.machine()}")
    missing = [m for m in MODULES if importlib.util.find_spec(m) is None]
    wheels = sorted(Path(args.wheels).glob("*.whl")) if Path(args.wheels).is_dir() else []
    site = Path(args.site)
    for module in list(missing):
        dist = MODULES[module].lower()
        for wheel in wheels:
            tags = WHEEL.match(wheel.name)
            if (
                tags
                and tags["dist"].lower() == dist
                and fits(tags["py"], tags["abi"], tags["plat"])
            ):
                site.mkdir(parents=True, exist_ok=True)
                with zipfile.ZipFile(wheel) as zf:
                    zf.extractall(site)
                print(f"unpacked {wheel.name} into {site}")
                missing.remove(module)
                break
        else:
            offered = [w.name for w in wheels if w.name.lower().startswith(dist + "-")]
            if offered:
                print(
                    f"{module}: the carried {offered} do not fit Python {platform.python_version()}"
                )
    if missing:
        print(
            "still missing: "
            + ", ".join(f"{m}{' (optional)' if m in OPTIONAL else ''}" for m in missing)
        )
    try:
        import torch
    except ImportError:
        print("torch is missing: nothing can run here")
        return 1
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    print(f"torch {torch.__version__}, CUDA {torch.version.cuda}, GPU {gpu}")
    return 1 if "numpy" in missing else 0


if __name__ == "__main__":
    sys.exit(main())
