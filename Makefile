# The two commands of the README: `make book` and `make test`. Each creates the virtual environment
# and installs what it needs on a fresh machine; nothing else has to be set up by hand.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PROFILE ?= book
# DATA_DIR=/path/to/papers-data: the folder with the papers' real data in their published layouts (book/how_to_use.md);
# every chapter reads what it finds there, at every profile, and falls back to stand-ins for the rest
DATA_DIR ?=
DATA_ARG = $(if $(DATA_DIR),--data-dir $(abspath $(DATA_DIR)),)
PYTEST_ARGS ?=
# Machines of this project keep the CPU torch wheel in /opt/wheels; elsewhere pip uses PyPI.
FIND_LINKS := $(if $(wildcard /opt/wheels),--find-links /opt/wheels,)
STAMP := $(VENV)/.installed

.PHONY: help venv vendor data test-data book report chapter classroom test test-fast bench chromium clean sync fixture-data

help:
	@echo "make book   build the whole book into _build/html (PROFILE=smoke|book|full, default book)"
	@echo "           only stale chapters re-execute (keyed on the library modules each imports); CHAPTERS=00_how_to_run,05_muse limits execution"
	@echo "make report  re-execute chapter 11 only (paper vs ours, claims) from the stored results, rebuild the HTML"
	@echo "make test   run the whole test suite (unit tests, chapters in the smoke profile, book build, offline browser check)"
	@echo "make test-fast  unit tests only;  make bench  benchmarks (--quick);  make data  fetch the default corpora"
	@echo "make test-data  fetch only what the smoke runs read (make test does it first)"
	@echo "make chapter CH=01_data PROFILE=smoke  rerun one chapter from here into _build/rerun/ (never stalls on widgets)"
	@echo "           DATA_DIR=/path (book or chapter): the papers' real data, read at every profile"
	@echo "make classroom  the exercises' editions: _build/classroom/{student,instructor,grading} (otter assign)"
	@echo "make fixture-data  write a small data_dir in the papers' layouts to _build/fixture_data (for DATA_DIR=...)"

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check $(FIND_LINKS) -r requirements.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -e .
	touch $@

venv: $(STAMP)

vendor: venv
	$(PY) tools/vendor_assets.py

data: venv
	$(VENV)/bin/xsent-data fetch --profile $(PROFILE)

# What the chapters' smoke runs read (about 152 MB of archives, verified and cached); `make book` reuses it.
test-data: venv
	$(VENV)/bin/xsent-data fetch --profile smoke

book: venv vendor data
	$(PY) tools/build_book.py --profile $(PROFILE) $(if $(CHAPTERS),--chapters $(CHAPTERS),) $(if $(JOBS),--jobs $(JOBS),) $(DATA_ARG)
	@echo "open _build/html/index.html"

# Chapter 11 alone, from the results the other chapters stored (_build/results, book/runs); none of them re-executes.
report: venv vendor
	$(PY) tools/build_book.py --profile $(PROFILE) --chapters 11_reproducibility --force $(DATA_ARG)
	@echo "open _build/html/notebooks/11_reproducibility.html"

# One chapter, as papermill would run it, on tools/nbexec.py's client (cannot stall on ipywidgets cells).
CH ?= 00_how_to_run
chapter: venv
	mkdir -p _build/rerun
	$(PY) tools/nbexec.py notebooks/$(CH).ipynb _build/rerun/$(CH).ipynb -p profile $(PROFILE) \
	  $(if $(DATA_DIR),-p data_dir $(abspath $(DATA_DIR)),)

# The classroom edition from notebooks/exercises/*.md (one otter-grader source per chapter; format in its README.md):
# student notebooks (solutions removed, checks kept), instructor notebooks, and the grading bundle.
classroom: venv
	$(PY) tools/classroom.py build --out _build/classroom
	@echo "student notebooks in _build/classroom/student, solutions in _build/classroom/instructor"

fixture-data: venv
	$(PY) tools/make_fixture_data.py _build/fixture_data

# Debian's chromium for the offline-page test; installed when we may (root with apt-get), else the test is skipped.
chromium:
	@if ! command -v chromium >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is not installed and cannot be installed here: the offline browser test will be skipped"; fi; \
	fi

test: venv vendor chromium test-data
	$(PY) -m pytest $(PYTEST_ARGS) || { rc=$$?; [ $$rc -eq 5 ] && echo "pytest collected no tests: that is a failure"; exit $$rc; }

test-fast: venv
	$(PY) -m pytest -m "not slow" $(PYTEST_ARGS)

bench: venv
	for b in benchmarks/bench_*.py; do echo "== $$b"; $(PY) $$b --quick; done

# Chapters are pairs (notebooks/NN_name.md, the reviewed source, and NN_name.ipynb): after editing one, sync the other.
sync: venv
	$(VENV)/bin/jupytext --sync notebooks/[0-9]*.md

clean:
	rm -rf _build
