#!/usr/bin/env bash
# Builds backendbench on a GPU machine and runs the checks named as arguments,
# writing logs and artifacts:
#   smoke     the smoke suite on CUDA
#   ctest     every test, the gpu-labelled ones included
#   gputest   the gpu-labelled tests only
#   trace     traces of the model zoo (tools/trace_models.py) -> traces/
#   dataset   the dataset JSON from data/torchbench/traces -> dataset.json
#   torchbench  the torchbench suite over the shipped dataset -> torchbench_run/
#   bench     bench-timing: ATen against itself over dataset inputs -> bench_timing.json
#             ($BENCH_INPUTS inputs, default 1000; extra flags in $BENCH_FLAGS, e.g. "--budget-ms 6")
#   sweep     bench-timing, first pass only, once per setting in $BENCH_SETTINGS (settings
#             separated by ';') -> sweep_N.txt / sweep_N.json, then a one-line summary of each
#   graphs    bench-timing --cuda-graphs (first pass) -> bench_graphs.json; the smoke suite with
#             --cuda-graphs -> smoke_graphs_run/
#   ncu       tools/ncu_compare.py over bench_timing.json (run bench first; $NCU_COUNT inputs, default 80,
#             about 3.5 s each) -> ncu_compare.json, ncu_logs/
#   dobench   tools/do_bench_compare.py over bench_timing.json ($DOBENCH_INPUTS inputs, default all;
#             about 0.25 s each; inputs not started within $DOBENCH_TIMEOUT s, default 540, are left out) -> do_bench.json
#   roundtrip trace real models, replay each trace with `backendbench trace`, compare operators
#   override  real models on ATen and on examples/kernels_cuda (tools/model_override.py)
#   kernels   the CUDA example kernels on their operators' torchbench inputs -> kernels_run/
#   scaling   the whole shipped dataset over every visible GPU, then on the first alone (tools/benchmark.py
#             --rows gpus): tests/s each and their ratio -> scaling.txt, scaling.json
#   verdicts  the verdict pipeline's GPU tests (VerdictsGpu: CUDA trace cases, CUDA cheats), then the full
#             shipped torchbench dataset ATen against ATen with every check -> verdicts_run/, with the time per test
#   suites    --suite opinfo and --suite facto on ATen (CUDA, bfloat16) -> opinfo_run/, facto_run/, with
#             their figures (tools/suite_figures.py) and times; OpInfo needs the expecttest package:
#             a carried wheel is installed from $WHEELS_DIR (default: the repository root) when it is missing
#   legacy    the published layout with torch 1.13 operators (tests/fixtures/published_traces), ATen vs ATen
#             on CUDA -> legacy_run/ (expect correctness 1.00 and 2 inputs excluded as not operators of torch)
#   python    Python kernels: the Triton examples on their torchbench inputs -> triton_run/; timm and
#             Hugging Face models on them (tools/model_override.py); the Python tests; the boundary's
#             cost per call (tools/python_boundary_bench.py) on CUDA and CPU
#   pipinstall  pip wheel . (scikit-build-core, no build isolation: no network) installed into a folder of
#             its own; import backendbench from there runs smoke on CUDA through the installed binary
#   flaggems  --backend flag_gems: smoke -> flag_gems_smoke/, then torchbench -> flag_gems_torchbench/
#             ($FLAG_GEMS_TOPN inputs per operator, default 3; empty for all of them). Installs the
#             wheels carried in .whl/ (flag-gems and what it needs) when flag_gems does not import
#   report    the torchbench suite on examples/kernels_cuda (their operators) -> report_run/ (report.html),
#             then its roofline summary from `backendbench report` -> roofline.txt: every timed input with
#             bytes has a share of the peak bandwidth, and none is above 100% ("0 impossible")
#   models    `backendbench models`: 10 zoo models ($MODELS_FILTER) x {aten, examples/kernels_cuda, inductor} x
#             {eval, train}, verified ($MODELS_REPEAT repeats, default 5) -> models/ (results.jsonl,
#             summary.md, logs); a step cut short resumes when run again with the same SESSION_DIR; then
#             timm_resnet18 train profiled on ATen and the kernels -> models_profile/, one Chrome trace checked
#   stray     the GPU tests of stray work (side-stream and host-thread kernels caught, honest ones pass)
#   judgecost the whole shipped dataset ($JUDGECOST_DATA, when set), ATen against ATen, with the judge and with
#             --no-judge in turns, each with its default workers per GPU (2 and 1; tools/benchmark.py): tests/s and
#             the time split of each -> judgecost.txt; then a judged --topn-inputs 3 run's debug laps (one
#             worker; tools/judge_laps.py) -> judge_laps.txt; then what two processes on the GPU cost each other
#             (tools/gpu_contexts.py) -> gpu_contexts.txt
#   throughput  the whole shipped dataset, ATen against ATen on GPU 0, no baseline cache, once per
#             workers-per-GPU setting in $THROUGHPUT_WORKERS (default "1 2"): tests/s and the time
#             split of each -> throughput.txt, throughput_N/
# Everything lands in one archive, $RESULTS (default ./gpu_results.tgz). Artifacts are written to
# $SESSION_DIR (default: a fresh temporary folder); give several invocations the same SESSION_DIR
# (e.g. build/session) so that ncu and dobench find the bench_timing.json of an earlier bench.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${RESULTS:-gpu_results.tgz}
OUT=${SESSION_DIR:-$(mktemp -d)}
mkdir -p "$OUT"
trap 'tar czf "$RESULTS" -C "$OUT" .' EXIT
trap 'exit 143' TERM INT
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 HF_HUB_OFFLINE=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
# A GPU machine without libseccomp's headers would build workers without the sandbox's filter: a package
# unpacked under .gl/root (docs/building.md) is built in instead, statically.
seccomp=()
if [ -f .gl/root/usr/include/seccomp.h ]; then
  seccomp=(-DSECCOMP_INCLUDE_DIR="$PWD/.gl/root/usr/include"
           -DSECCOMP_LIBRARY="$(ls "$PWD"/.gl/root/usr/lib/*/libseccomp.a)")
fi
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${seccomp[@]}" \
    -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')" >"$OUT/configure.log" 2>&1 \
    || { tail -30 "$OUT/configure.log"; exit 1; }
fi
cmake --build build -j "$(nproc)" -- -k 0 >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -30; exit 1; }
echo "build ok"
for step in "$@"; do
  echo "=== $step"
  case "$step" in
    smoke) build/backendbench --suite smoke --backend aten --log-dir "$OUT/smoke_run" 2>&1 | tee "$OUT/smoke.txt" ;;
    ctest) ctest --test-dir build -j 8 --output-on-failure >"$OUT/ctest.txt" 2>&1; tail -15 "$OUT/ctest.txt"
      grep -B2 -A12 "Failure$" "$OUT/ctest.txt" | head -60 ;;
    gputest) ctest --test-dir build -L gpu --output-on-failure 2>&1 | tail -40 ;;
    trace) timeout "${TRACE_TIMEOUT:-300}" python3 tools/trace_models.py --lib build/libbackendbench_trace.so \
             --out "$OUT/traces" --dtype "${TRACE_DTYPE:-f16}" 2>&1 | tee "$OUT/trace.txt" | tail -60 ;;
    dataset) build/backendbench dataset --data data/torchbench/traces --out "$OUT/dataset.json" 2>&1 | tail -20 ;;
    torchbench) data=(); [ -f "$OUT/dataset.json" ] && data=(--data "$OUT/dataset.json")  # else the shipped one
      timeout "${TORCHBENCH_TIMEOUT:-3000}" build/backendbench --suite torchbench --backend aten "${data[@]}" --log-dir "$OUT/torchbench_run" 2>"$OUT/torchbench_stderr.txt" | tee "$OUT/torchbench.txt" ;;
    bench) # shellcheck disable=SC2086  # BENCH_FLAGS holds several flags
      build/backendbench bench-timing --inputs "${BENCH_INPUTS:-1000}" ${BENCH_FLAGS:-} --out "$OUT/bench_timing.json" \
        2>&1 | tee "$OUT/bench_timing.txt" | tail -22 ;;
    sweep) IFS=';' read -ra settings <<<"${BENCH_SETTINGS:---budget-ms 10;--budget-ms 6;--budget-ms 4;--budget-ms 6 --l2-flush-multiple 1}"
      for i in "${!settings[@]}"; do
        # shellcheck disable=SC2086  # each setting holds several flags
        build/backendbench bench-timing --cold-only --inputs "${BENCH_INPUTS:-1000}" ${settings[$i]} \
          --out "$OUT/sweep_$i.json" >"$OUT/sweep_$i.txt" 2>&1
        echo "setting $i (${settings[$i]}): $(grep -E '^all ' "$OUT/sweep_$i.txt" | head -1)"
        grep -E '^wall time' "$OUT/sweep_$i.txt" | head -1
      done ;;
    graphs) build/backendbench bench-timing --cuda-graphs --cold-only --inputs "${BENCH_INPUTS:-1000}" ${BENCH_FLAGS:-} \
        --out "$OUT/bench_graphs.json" 2>&1 | tee "$OUT/bench_graphs.txt" | tail -20
      build/backendbench --suite smoke --backend aten --cuda-graphs --log-dir "$OUT/smoke_graphs_run" 2>&1 | tail -4
      grep -A4 "## CUDA Graphs" "$OUT/smoke_graphs_run/OVERALL_SUMMARY.md" | tail -2 ;;
    ncu) ncu_bin=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      if [ -z "$ncu_bin" ]; then echo "ncu not found"; continue; fi
      timeout "${NCU_TIMEOUT:-580}" python3 tools/ncu_compare.py --bench "$OUT/bench_timing.json" --ncu "$ncu_bin" \
        --count "${NCU_COUNT:-80}" --calls 3 --logs "$OUT/ncu_logs" --out "$OUT/ncu_compare.json" 2>&1 \
        | tee "$OUT/ncu_compare.txt" | grep -vE "^input [0-9]+ [^ ]+: ncu [0-9]" | tail -"$(( ${NCU_COUNT:-80} + 10 ))" ;;
    dobench) limit=(); [ -n "${DOBENCH_INPUTS:-}" ] && limit=(--max-inputs "$DOBENCH_INPUTS")
      python3 tools/do_bench_compare.py --bench "$OUT/bench_timing.json" "${limit[@]}" --time-limit "${DOBENCH_TIMEOUT:-540}" \
        --out "$OUT/do_bench.json" 2>&1 | tee "$OUT/do_bench.txt" | tail -14 ;;
    roundtrip) python3 tools/trace_models.py --lib build/libbackendbench_trace.so --out "$OUT/roundtrip" \
                 --models "${ROUNDTRIP_MODELS:-hf_BertForMaskedLM,timm_resnet18}" 2>&1 | tail -3
      for f in "$OUT"/roundtrip/*.txt; do
        build/backendbench trace --data "$f" --out "${f%.txt}.replayed" --log-level WARNING 2>&1 | tail -3
        if diff <(grep ^Operator "$f") <(grep ^Operator "${f%.txt}.replayed"); then
          echo "round trip ok: $(basename "$f"): $(grep -c ^Operator "$f") operators, the same after replay"
        else echo "round trip FAILED: $(basename "$f")"; fi
      done ;;
    override) timeout "${OVERRIDE_TIMEOUT:-900}" python3 tools/model_override.py \
                --model "${OVERRIDE_MODELS:-timm_resnet18,hf_BertForMaskedLM}" \
                --kernels-dir "${OVERRIDE_KERNELS:-examples/kernels_cuda}" --dtype "${OVERRIDE_DTYPE:-f32}" \
                --device cuda 2>&1 | tee "$OUT/override.txt" | tail -60 ;;
    kernels) build/backendbench --suite torchbench --backend directory --ops-directory examples/kernels_cuda \
               --ops aten.relu.default,aten.add.Tensor,aten.mul.Tensor,aten._softmax.default,aten.native_layer_norm.default \
               --log-dir "$OUT/kernels_run" 2>"$OUT/kernels_stderr.txt" | tee "$OUT/kernels.txt"
      grep -E "failed|error" "$OUT/kernels_stderr.txt" | head -20; cat "$OUT/kernels_run/operator_summary.csv" ;;
    report) build/backendbench --suite torchbench --backend directory --ops-directory examples/kernels_cuda \
              --ops aten.relu.default,aten.add.Tensor,aten.mul.Tensor,aten._softmax.default,aten.native_layer_norm.default \
              --log-dir "$OUT/report_run" 2>"$OUT/report_stderr.txt" | tail -3
      build/backendbench report "$OUT/report_run" | tee "$OUT/roofline.txt"
      grep -A8 '"device_peaks"' "$OUT/report_run/run_info.json"
      if grep -qE ', 0 impossible' "$OUT/roofline.txt"; then echo "roofline check: no share above 100%"
      else echo "roofline check FAILED: a timing above the peak bandwidth (see roofline.txt)"; fi ;;
    scaling) python3 tools/benchmark.py --rows gpus --out "$OUT/scaling.json" | tee "$OUT/scaling.txt" ;;
    verdicts) ctest --test-dir build -L gpu -R VerdictsGpu --output-on-failure 2>&1 | tail -30
      start=$(date +%s%N)
      build/backendbench --suite torchbench --backend aten --no-baseline-cache --log-dir "$OUT/verdicts_run" \
        2>"$OUT/verdicts_stderr.txt" | tee "$OUT/verdicts.txt"
      end=$(date +%s%N)
      tests=$(python3 -c 'import json,sys;print(len(json.load(open(sys.argv[1]))))' "$OUT/verdicts_run/full_results.json")
      echo "verdicts: $tests tests in $(( (end - start) / 1000000 )) ms, $(( (end - start) / 1000 / (tests > 0 ? tests : 1) )) us per test"
      grep -A12 -E "^## (Failures by Type|Excluded Inputs)" "$OUT/verdicts_run/OVERALL_SUMMARY.md" | head -40 ;;
    suites) python3 -c 'import expecttest' 2>/dev/null \
        || python3 -m pip install --no-index --find-links "${WHEELS_DIR:-.}" expecttest 2>&1 | tail -1
      for suite in opinfo facto; do
        SECONDS=0  # the first opinfo run includes the export of the OpInfo samples into the cache
        timeout "${SUITES_TIMEOUT:-2400}" build/backendbench --suite "$suite" --backend aten --log-dir "$OUT/${suite}_run" \
          2>"$OUT/${suite}_stderr.txt" | tee "$OUT/$suite.txt"
        echo "$suite: ${SECONDS} s"
        grep -E "exporting|OpInfos left out|facto: [0-9]+ operators|error|fatal" "$OUT/${suite}_stderr.txt" | head -8
        python3 tools/suite_figures.py "$OUT/${suite}_run" | tee "$OUT/${suite}_figures.txt"
      done ;;
    legacy) build/backendbench --suite torchbench --data tests/fixtures/published_traces --log-dir "$OUT/legacy_run" \
              2>"$OUT/legacy_stderr.txt" | tee "$OUT/legacy.txt"
      grep -E "rewritten|not an operator" "$OUT/legacy_stderr.txt" | head -5
      python3 -c "import json,sys; [print('excluded', e['op_name'] + ':', e['reason'][:60]) for e in json.load(open(sys.argv[1]))]" \
        "$OUT/legacy_run/excluded_tests.json" ;;
    python) timeout 300 build/backendbench --suite torchbench --backend directory \
               --ops-directory examples/kernels_triton \
               --ops aten.relu.default,aten.add.Tensor,aten.mul.Tensor,aten._softmax.default \
               --log-dir "$OUT/triton_run" 2>"$OUT/triton_stderr.txt" | tee "$OUT/triton.txt"
      grep -E "Error|failed" "$OUT/triton_stderr.txt" | head -20; cat "$OUT/triton_run/operator_summary.csv"
      timeout 300 python3 tools/model_override.py --model "${OVERRIDE_MODELS:-timm_resnet18,hf_BertForMaskedLM}" \
        --kernels-dir examples/kernels_triton --dtype "${OVERRIDE_DTYPE:-f32}" --device cuda 2>&1 \
        | tee "$OUT/override_triton.txt" | tail -40
      ctest --test-dir build -R "^python\.|Python" --output-on-failure 2>&1 | tail -15
      for device in cuda cpu; do
        PYTHONPATH=python python3 tools/python_boundary_bench.py --device $device --calls 5000 2>&1 \
          | tee "$OUT/boundary_$device.txt"
      done ;;
    pipinstall) timeout 580 python3 -m pip wheel --no-build-isolation --no-deps -w "$OUT/wheel" . >"$OUT/pip_wheel.txt" 2>&1 \
        || { tail -30 "$OUT/pip_wheel.txt"; continue; }
      python3 -m pip install --no-deps --target "$OUT/site" "$OUT"/wheel/backendbench-*.whl 2>&1 | tail -2
      (cd "$OUT" && PYTHONPATH="$OUT/site" python3 -c "import backendbench; print(backendbench.__file__); \
print('correctness', backendbench.run(suite='smoke', backend='aten', device='cuda').correctness_score)") ;;
    flaggems) if ! python3 -c "import flag_gems" 2>/dev/null; then
        python3 -m pip install --no-deps --no-index .whl/*.whl >"$OUT/flag_gems_pip.txt" 2>&1 || tail -5 "$OUT/flag_gems_pip.txt"
      fi
      python3 -c "import flag_gems, triton, torch; print('flag_gems', flag_gems.__version__, 'triton', triton.__version__, 'torch', torch.__version__)"
      build/backendbench --suite smoke --backend flag_gems --log-dir "$OUT/flag_gems_smoke" 2>"$OUT/flag_gems_smoke_stderr.txt" \
        | tee "$OUT/flag_gems_smoke.txt"
      tail -3 "$OUT/flag_gems_smoke_stderr.txt"
      topn=(); [ -n "${FLAG_GEMS_TOPN-3}" ] && topn=(--topn-inputs "${FLAG_GEMS_TOPN-3}")
      timeout "${FLAG_GEMS_TIMEOUT:-540}" build/backendbench --suite torchbench --backend flag_gems "${topn[@]}" \
        --log-dir "$OUT/flag_gems_torchbench" 2>"$OUT/flag_gems_torchbench_stderr.txt" | tee "$OUT/flag_gems_torchbench.txt"
      grep -m1 -E "suite torchbench: " "$OUT/flag_gems_torchbench_stderr.txt"
      echo "operators evaluated by flag_gems: $(( $(wc -l <"$OUT/flag_gems_torchbench/operator_summary.csv") - 1 ))"
      grep -m1 -E "flag_gems [0-9.]+: [0-9]+ ATen operators" "$OUT/flag_gems_torchbench_stderr.txt" ;;
    models) models_filter=${MODELS_FILTER:-'^(torch_small_cnn|torch_small_transformer|torchvision_(alexnet|vgg11|squeezenet1_1|resnet18|mobilenet_v2)|timm_(resnet18|mobilenetv3_large_100)|hf_DistilBertForMaskedLM)$'}
      models=(build/backendbench models --accelerator cuda --filter "$models_filter" --repeat "${MODELS_REPEAT:-5}"
              --warmup-iterations 2 --verify --experiment-timeout 240 --output-dirname "$OUT/models")
      # Eager on ATen and on the kernels first, then inductor; each part is cut at its time limit and
      # resumes (skipping what results.jsonl has) when the step runs again with the same SESSION_DIR.
      timeout "${MODELS_EAGER_TIMEOUT:-210}" "${models[@]}" --kernels-dir examples/kernels_cuda \
        --dynamo None >"$OUT/models_eager.txt" 2>&1; grep -E '^\[[0-9]+/' "$OUT/models_eager.txt" | tail -40
      timeout "${MODELS_INDUCTOR_TIMEOUT:-240}" "${models[@]}" --backend aten --dynamo inductor \
        >"$OUT/models_inductor.txt" 2>&1; grep -E '^\[[0-9]+/' "$OUT/models_inductor.txt" | tail -20
      cat "$OUT/models/summary.md"
      timeout 90 build/backendbench models --accelerator cuda --filter '^timm_resnet18$' --kernels-dir examples/kernels_cuda \
        --dynamo None --test train --repeat 2 --profile-cuda --profile-cuda-cpu --verify \
        --output-dirname "$OUT/models_profile" >"$OUT/models_profile.txt" 2>&1; tail -8 "$OUT/models_profile.txt"
      python3 - "$OUT/models_profile" <<'PY'
import glob, json, sys
traces = sorted(glob.glob(f"{sys.argv[1]}/timm_resnet18/0/trace-*.json"))
for path in traces:
    events = json.load(open(path))["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    print(f"chrome trace ok: {path.split('/')[-1]}: {len(events)} events, {len(kernels)} GPU kernels")
print(f"{len(traces)} traces checked" if traces else "no Chrome trace found")
PY
      ;;
    stray) build/tests/bb_gpu_tests --gtest_filter='SideStreams.*' 2>&1 | tee "$OUT/stray.txt" | tail -30 ;;
    throughput) for n in ${THROUGHPUT_WORKERS:-1 2}; do
        start=$(date +%s%N)
        build/backendbench --suite torchbench --devices 0 --workers-per-gpu "$n" --no-baseline-cache \
          --log-dir "$OUT/throughput_$n" --log-level WARNING >"$OUT/throughput_$n.txt" 2>&1
        end=$(date +%s%N)
        { echo "workers per GPU $n: $(( (end - start) / 1000000 )) ms in all;" \
            "$(grep -m1 'correctness score' "$OUT/throughput_$n.txt")"
          grep -m1 '^Time split' "$OUT/throughput_$n.txt"; } | tee -a "$OUT/throughput.txt"
      done ;;
    judgecost) # the same binary with and without the judge, in turns (tools/benchmark.py); about 10 minutes
      python3 tools/benchmark.py --binary judge=build/backendbench --binary no-judge=build/backendbench \
        --build-flag no-judge=--no-judge --rows whole ${JUDGECOST_DATA:+--data "$JUDGECOST_DATA"} \
        --out "$OUT/judgecost.json" 2>&1 | tee "$OUT/judgecost.txt"
      # where a judged call's time goes, step by step, on three inputs per operator
      build/backendbench --suite torchbench --topn-inputs 3 --workers-per-gpu 1 --no-baseline-cache --log-level DEBUG \
        --log-dir "$OUT/judgecost_debug" >/dev/null 2>"$OUT/judgecost_debug.txt"
      python3 tools/judge_laps.py "$OUT/judgecost_debug.txt" | tee "$OUT/judge_laps.txt"
      python3 tools/gpu_contexts.py | tee "$OUT/gpu_contexts.txt" ;;
  esac
done
