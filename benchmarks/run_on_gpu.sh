#!/usr/bin/env bash
# The GPU measurements of the book (issue 26's rows), in one call of at most 8 minutes on one lent
# GPU (the time limits below add up to 480 s; its own python3 with CUDA torch; no data cache, no
# network). Writes into ${OUT:-_build/gpu}:
#   cuda_tests.log           the CUDA unit tests' log
#   side_by_side_gpu.json    CSLS at 200k words vs MUSE's evaluator, InferSent encoding vs the
#                            release's models.py, SP averaging under Wieting et al.'s Table 4
#                            protocol (300-d, 1024-d) with the paper's GP100 rates beside,
#                            word and trigram averaging on the same sentences
#                            (benchmarks/bench_gpu_side_by_side.py)
#   xlm_gpu.json             XLM pretraining at the large size with its utilisation
#                            (6 x parameters x tokens/s against the measured bf16 GEMM rate)
#   xlm_compile_gpu.json     the same (CLM) with torch.compile
#   xlm_book_gpu.json        the book's size on the GPU ...
#   xlm_book_cpu1.json       ... and on one CPU thread of the same machine
#   paraphrase_gpu.json      chapter 8's Table 4 with its GPU column
# Every record carries provenance (GPU name; commit: set XSENT_COMMIT, the copy has no .git). The
# references are carried in, never committed: run once on the CPU machine
#   python benchmarks/prepare_gpu_carry.py --muse <MUSE git dir> --infersent <InferSent git dir>
# (writes .gl/gpu, gitignored), name .gl as the device call's carry path, then on the GPU machine:
#   XSENT_COMMIT=<commit> bash benchmarks/run_on_gpu.sh
# Dry run on a CPU (tiny sizes, no compile, no tests):
#   bash benchmarks/run_on_gpu.sh --device cpu --quick
# The committed copies of the records live in benchmarks/results/*_gpu.json.
set -uo pipefail
device=cuda quick=""
while [ $# -gt 0 ]; do
  case "$1" in
    --device) device=$2; shift 2 ;;
    --quick) quick=--quick; shift ;;
    *) echo "unknown argument $1 (use --device cpu|cuda, --quick)" >&2; exit 2 ;;
  esac
done
out=${OUT:-_build/gpu}
mkdir -p "$out"
export PYTHONPATH=.${PYTHONPATH:+:$PYTHONPATH} XSENT_DATA_CACHE=${XSENT_DATA_CACHE:-$(mktemp -d)}
py=${PYTHON:-python3}
refs=${XSENT_GPU_REFS:-.gl/gpu}
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
limit() { if [ -n "$quick" ]; then echo 0; else echo "$1"; fi; }  # seconds; no limit in a dry run
if [ "$device" = cuda ]; then
  nvidia-smi -L | tee "$out/nvidia-smi.txt"
  $py -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda,
    "numpy", numpy.__version__)'
  timeout $(limit 45) $py -m pytest -q -p no:cacheprovider tests/test_cuda_paths.py \
    tests/test_device_knn.py tests/test_speed_paths.py tests/test_runtime.py -m "not slow" 2>&1 \
    | tail -n 15 \
    | tee "$out/cuda_tests.log"
  stamp tests
fi
timeout $(limit 150) $py benchmarks/bench_gpu_side_by_side.py --device "$device" $quick \
  --refs "$refs" --out "$out/side_by_side_gpu.json"
stamp side-by-side
size=large; [ -n "$quick" ] && size=book
timeout $(limit 60) $py benchmarks/bench_xlm.py --device "$device" --size $size --repeat 1 \
  --out "$out/xlm_gpu.json"
stamp xlm
if [ -z "$quick" ]; then
  timeout $(limit 70) $py benchmarks/bench_xlm.py --device "$device" --size $size --repeat 1 \
    --compile --objectives clm --out "$out/xlm_compile_gpu.json"
  stamp xlm-compile
  timeout $(limit 30) $py benchmarks/bench_xlm.py --device "$device" --size book --repeat 1 \
    --out "$out/xlm_book_gpu.json"
  timeout $(limit 35) $py benchmarks/bench_xlm.py --device cpu --size book --threads 1 --repeat 1 \
    --out "$out/xlm_book_cpu1.json"
  stamp xlm-book
  timeout $(limit 90) $py benchmarks/bench_paraphrase.py --device "$device" \
    --out "$out/paraphrase_gpu.json"
fi
stamp all
