"""Worker processes for independent jobs: same results as a serial loop, clear errors, the process count."""
from __future__ import annotations

import subprocess
import sys

import pytest
import torch

from xsent_lib.base.parallel import ENV_VAR, parallel_map, usable_processes, worker_cpu_seconds
from xsent_lib.base.runtime import check_seed
from xsent_lib.data.nli_corpus import NLICorpus
from xsent_lib.data.word_setup import WordSetup
from xsent_lib.train.nli import InferSentConfig, train_nli_encoder


def test_trainings_in_workers_equal_the_serial_loop_bit_for_bit(easy_corpus: NLICorpus, easy_words: WordSetup):
    jobs = [{"name": name, "corpus": easy_corpus, "words": easy_words, "config": InferSentConfig(epochs=1),
             "width": 8, "device": "cpu", "seed": seed} for name, seed in (("bilstm-max", 0), ("lstm", 3))]
    serial = parallel_map(train_nli_encoder, jobs, processes=1)
    cpu_before = worker_cpu_seconds()
    spread = parallel_map(train_nli_encoder, jobs, processes=2)
    assert worker_cpu_seconds() > cpu_before  # the workers' CPU time reaches the chapter's provenance
    assert [r.name for r in spread] == ["bilstm-max", "lstm"]  # job order, whatever finished first
    for a, b in zip(serial, spread):
        assert a.dev_acc == b.dev_acc and a.test_acc == b.test_acc
        sa, sb = a.model.state_dict(), b.model.state_dict()
        assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    # different seeds really give different models, so the equality above is not vacuous
    w0, w1 = (r.model.state_dict() for r in serial)
    shared = [k for k in w0 if k in w1 and w0[k].shape == w1[k].shape and w0[k].dtype.is_floating_point]
    assert shared and not all(torch.equal(w0[k], w1[k]) for k in shared)


def test_a_failing_job_names_its_position_and_how_to_debug():
    with pytest.raises(ValueError, match="non-negative integer") as info:
        parallel_map(check_seed, [{"seed": 1}, {"seed": -4}], processes=2)
    assert any("job 1 of 2" in note and ENV_VAR in note for note in getattr(info.value, "__notes__", []))
    assert parallel_map(check_seed, [{"seed": 5}, {"seed": 6}], processes=2) == [5, 6]


def test_the_caller_imports_the_library_modules_its_workers_used(tmp_path):
    # A chapter's provenance lists the library modules its kernel imported, and the book re-executes the chapter
    # when one changes: a module only a worker imported (sentences_space imports wordvecs lazily) must be there.
    script = ("import sys\n"
              "from xsent_lib.base.parallel import parallel_map\n"
              "from xsent_lib.data.word_spaces import sentences_space\n"
              "before = 'xsent_lib.data.wordvecs' in sys.modules\n"
              "text = ['the cat sat on the mat', 'a dog ran in the park'] * 60\n"
              f"jobs = [dict(lang='en', sentences=text, dim=4, min_count=1, seed=s, cache_dir={str(tmp_path)!r})\n"
              "        for s in (0, 1)]\n"
              "parallel_map(sentences_space, jobs, processes=2)\n"
              "print(before, 'xsent_lib.data.wordvecs' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["False", "True"]


def test_workers_stop_quietly_when_the_process_group_is_interrupted():
    # Jupyter stops a kernel by signalling its process group: idle workers must not print a traceback each
    script = ("import os, signal, time\n"
              "from xsent_lib.base.parallel import parallel_map\n"
              "from xsent_lib.base.runtime import check_seed\n"
              "print(parallel_map(check_seed, [{'seed': 1}, {'seed': 2}], processes=2))\n"
              "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
              "os.killpg(os.getpgrp(), signal.SIGINT)\n"
              "time.sleep(1)\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         start_new_session=True)
    assert out.returncode == 0 and out.stdout.strip() == "[1, 2]", out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "KeyboardInterrupt" not in out.stderr, out.stderr[-2000:]


def test_bad_jobs_and_process_counts_are_refused(monkeypatch: pytest.MonkeyPatch):
    with pytest.raises(TypeError, match="mapping of keyword arguments"):
        parallel_map(check_seed, [5])
    with pytest.raises(ValueError, match="at least 1"):
        parallel_map(check_seed, [{"seed": 1}], processes=0)
    assert parallel_map(check_seed, [], processes=2) == []
    monkeypatch.setenv(ENV_VAR, "two")
    with pytest.raises(ValueError, match="positive integer"):
        usable_processes("cpu")
    monkeypatch.setenv(ENV_VAR, "1")
    assert usable_processes("cpu") == 1
    monkeypatch.delenv(ENV_VAR)
    assert usable_processes("cpu") >= 1
