#!/usr/bin/env bash
# The GPU measurements of the book, in one short call on a lent GPU machine (its own python3 with CUDA torch;
# no data cache, no network). Writes into ${OUT:-_build/gpu}: the CUDA unit tests' log, XLM pretraining
# throughput at the GPU size and at the medium size of the committed CPU run, and at the book's size on the GPU and
# on one CPU thread of the same machine (that ratio is read inside one run), and chapter 8's Table 4 with its GPU column
# (bench_paraphrase.py --device cuda). The committed copies live in benchmarks/results/*_gpu.json.
#   XSENT_COMMIT=$(git rev-parse --short=12 HEAD) bash benchmarks/run_on_gpu.sh
set -uo pipefail
out=${OUT:-_build/gpu}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} XSENT_DATA_CACHE=${XSENT_DATA_CACHE:-$(mktemp -d)}
py=${PYTHON:-python3}
nvidia-smi -L | tee "$out/nvidia-smi.txt"
$py -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "numpy", numpy.__version__)'
t0=$(date +%s)
$py -m pytest -q -p no:cacheprovider tests/test_train.py tests/test_transformer.py tests/test_runtime.py tests/test_cuda_paths.py \
  tests/test_xlm.py -m "not slow" 2>&1 | tail -n 15 | tee "$out/cuda_tests.log"
echo "tests: $(( $(date +%s) - t0 )) s"
$py benchmarks/bench_xlm.py --device cuda --size large --out "$out/xlm_gpu.json"
$py benchmarks/bench_xlm.py --device cuda --size medium --out "$out/xlm_medium_gpu.json"
$py benchmarks/bench_xlm.py --device cuda --size book --out "$out/xlm_book_gpu.json"
$py benchmarks/bench_xlm.py --device cpu --size book --threads 1 --out "$out/xlm_book_cpu1.json"
echo "xlm: $(( $(date +%s) - t0 )) s"
$py benchmarks/bench_paraphrase.py --device cuda --out "$out/paraphrase_gpu.json"
echo "all: $(( $(date +%s) - t0 )) s"
