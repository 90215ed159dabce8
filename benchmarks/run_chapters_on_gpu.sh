#!/usr/bin/env bash
# Run chapters at the `gpu` profile on a bare machine with CUDA torch: no network, maybe no Jupyter
# stack, no data cache. One call of the device tool, from the repository root:
#   XSENT_COMMIT=<12-hex commit> bash benchmarks/run_chapters_on_gpu.sh 10_xlm 08_wieting 05_muse
# with carry [".whl", ".gl"], where (made here first, see tools/prepare_gpu_carry.sh)
#   .whl/  wheels of what the machine lacks (gensim, smart_open, platformdirs), used when missing,
#   .gl/xsent-data.tar.xz  the cached datasets those chapters read (xsent-data pack).
# Each chapter runs from its MyST source (tools/run_chapter.py: no IPython, papermill or jupytext
# needed) under a time limit (LIMIT_S, default 180 s; LIMIT_S_<chapter> sets one chapter's) and
# writes metrics.json, provenance.json, runner.json, output.txt and figures/ to
# $RESULTS/<chapter>/<profile>/ (RESULTS=book/runs, PROFILE=gpu by default). With $OUT set (the
# device tool's folder), they come back packed as $OUT/runs-<profile>.tar.gz with the log; here:
# tar -xzf runs-gpu.tar.gz -C book/runs, then commit book/runs. The test (tests/test_gpu_runner.py)
# runs this script with DEVICE=cpu PROFILE=smoke and IPython and papermill blocked.
set -uo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
profile=${PROFILE:-gpu}
device=${DEVICE:-auto}
results=${RESULTS:-book/runs}
limit=${LIMIT_S:-180}
wheels=${WHEELS:-.whl}
pack=${DATA_PACK:-.gl/xsent-data.tar.xz}
chapters=("$@")
[ ${#chapters[@]} -gt 0 ] || chapters=(10_xlm 08_wieting 05_muse)
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 MPLBACKEND=Agg
if [ -z "${XSENT_COMMIT:-}" ] && git rev-parse --short=12 HEAD >/dev/null 2>&1; then
  XSENT_COMMIT=$(git rev-parse --short=12 HEAD); export XSENT_COMMIT
fi
[ -n "${OUT:-}" ] && exec > >(tee "$OUT/run.log") 2>&1
t0=$(date +%s)
command -v nvidia-smi >/dev/null && nvidia-smi -L
# the machine: Python, torch, what the chapters import and which carried wheels it needs
site=${XSENT_SITE:-/tmp/xsent-site}
$py tools/offline_env.py --wheels "$wheels" --site "$site" || exit 1
[ -d "$site" ] && export PYTHONPATH=$PYTHONPATH:$site
if [ -f "$pack" ]; then
  export XSENT_DATA_CACHE=${XSENT_DATA_CACHE:-/tmp/xsent-data}
  $py -c "import sys; from xsent_lib.data.pack import unpack_datasets as u
m = u(sys.argv[1], sys.argv[2])
print('data pack:', len(m['datasets']), 'datasets', round(m['bytes'] / 1e6, 1), 'MB; left out:',
      ', '.join(m['left_out']) or 'none')" "$pack" "$XSENT_DATA_CACHE" || exit 1
fi
echo "setup: $(( $(date +%s) - t0 )) s"
failed=0
for ch in "${chapters[@]}"; do
  own="LIMIT_S_$ch"  # e.g. LIMIT_S_05_muse=250 gives one chapter its own limit
  if ! $py tools/run_chapter.py "notebooks/$ch.md" --profile "$profile" --device "$device" \
      --results-dir "$results" --time-limit "${!own:-$limit}" > /dev/null; then
    failed=$((failed + 1))
    tail -n 20 "$results/$ch/$profile/output.txt"
  fi
done
echo "all: $(( $(date +%s) - t0 )) s, $failed of ${#chapters[@]} chapters failed"
if [ -n "${OUT:-}" ]; then
  (cd "$results" && tar --exclude=work -czf "$OUT/runs-$profile.tar.gz" \
    $(printf "%s/$profile " "${chapters[@]}"))
  ls -la "$OUT"
fi
exit $(( failed > 0 ))
