#!/usr/bin/env bash
# Make, here (with the network's package registry and the warm data cache), what a bare GPU machine
# needs for benchmarks/run_chapters_on_gpu.sh: .whl/ (wheels of the packages its image lacks, for
# its Python 3.12) and .gl/xsent-data.tar.xz (the datasets chapters 5, 8 and 10 read: the union of
# `cached_datasets` in the provenance.json of their book runs; gpu reads book's datasets). Both
# folders are git-ignored and travel as the device tool's `carry`; the script prints their sizes
# (the tree and the carried paths: 64 MiB at most).
#   PY=.venv/bin/python tools/prepare_gpu_carry.sh
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PY:-.venv/bin/python}
mkdir -p .whl .gl
"$py" -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 \
  -d .whl gensim==4.4.0 smart_open==9.0.2 platformdirs==4.14.5
"$py" -m xsent_lib.data.cli pack --out .gl/xsent-data.tar.xz \
  bible-en-es brown fortunes-de fortunes-en fortunes-es fortunes-ru freedict-de-en freedict-en-de \
  freedict-en-es freedict-en-fr freedict-en-ru freedict-es-en freedict-fr-en gettext-en-fr \
  lohelp-en-de lohelp-en-es lohelp-en-fr lohelp-en-ru nlp-en-de nlp-en-fr
du -ch .whl .gl | tail -n 1
git ls-files -z | du -ch --files0-from=- | tail -n 1
