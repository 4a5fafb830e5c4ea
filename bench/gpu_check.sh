#!/usr/bin/env bash
# GPU check for the local backend, on a machine with one NVIDIA GPU, the CUDA toolkit,
# python3 (with scikit-build-core, cmake, ninja, numpy, jinja2) and no network.
#
# Needs bench/data/gpu/ from bench/gpu_prepare.sh (carry that path). From the repo root:
#     bash bench/gpu_check.sh
# It builds llama-cpp-python with CUDA from the carried slim sdist into /tmp/site,
# rebuilds the built-in model's exact layout with zeroed weights (the real weights are
# too big to carry; speed depends on shapes and quant types, not on values), then runs
# `python -m bench local_speed` (ours vs raw llama-cpp-python, side by side) with every
# layer on the GPU and with none. Logs and figures go to $OUT (default /tmp/gpu_check):
# steps.log, build.log, offload.txt, gpu.md/gpu.json, cpu.md/cpu.json, summary.txt.
set -uo pipefail

OUT="${OUT:-/tmp/gpu_check}"
PAYLOAD="bench/data/gpu"
SITE="/tmp/site"
PY="${PYTHON:-python3}"
ARCH="${CUDA_ARCH:-90}"  # H100/H200
mkdir -p "$OUT" "$SITE"
START=$SECONDS

log() { echo "[$((SECONDS - START))s] $*" | tee -a "$OUT/steps.log"; }
fail() { log "FAILED: $*"; exit 1; }

log "machine"
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv; nvcc --version | tail -2;
  "$PY" --version; nproc; grep -m1 "model name" /proc/cpuinfo; } 2>&1 | tee -a "$OUT/steps.log"
[ -d "$PAYLOAD" ] || fail "$PAYLOAD is missing: run bench/gpu_prepare.sh here and carry $PAYLOAD"

if [ -n "${SKIP_BUILD:-}" ]; then  # for trying the rest of this script where there is no GPU
    log "SKIP_BUILD: using the llama_cpp that $PY already has"
    export PYTHONPATH="$PWD"
else
"$PY" -m pip install -q --no-index --no-deps --no-compile --target "$SITE" "$PAYLOAD"/wheels/*.whl \
    || fail "installing the carried wheels"
export PYTHONPATH="$SITE:$PWD"

# CMake finds cuBLAS in the toolkit; where the toolkit lacks it, use the pip-installed
# NVIDIA libraries through unversioned links (the build links to libcublas.so).
EXTRA=""
CUDA_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")"
if ! ls "$CUDA_DIR"/lib64/libcublas.so "$CUDA_DIR"/targets/*/lib/libcublas.so >/dev/null 2>&1; then
    PURE="$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    LIB="$(find "$PURE"/nvidia /usr/lib /usr/local -name 'libcublas.so*' 2>/dev/null | head -1)"
    INC="$(find "$PURE"/nvidia /usr/include /usr/local -name cublas_v2.h 2>/dev/null | head -1)"
    [ -n "$LIB" ] && [ -n "$INC" ] || fail "no cuBLAS library or header found"
    SHIM=/tmp/cublas-shim
    mkdir -p "$SHIM"
    for name in cublas cublasLt; do
        ln -sf "$(ls "$(dirname "$LIB")"/lib$name.so* | head -1)" "$SHIM/lib$name.so"
    done
    EXTRA="-DCUDA_cublas_LIBRARY=$SHIM/libcublas.so -DCUDA_cublasLt_LIBRARY=$SHIM/libcublasLt.so"
    EXTRA="$EXTRA -DCMAKE_CUDA_FLAGS=-I$(dirname "$INC") -DCMAKE_CXX_FLAGS=-I$(dirname "$INC")"
    export LD_LIBRARY_PATH="$(dirname "$LIB"):${LD_LIBRARY_PATH:-}"
    log "cuBLAS from $(dirname "$LIB"), headers from $(dirname "$INC")"
fi

# One architecture, no FlashAttention kernels (the backend does not enable flash attention)
# and no multimodal library: the build must fit in a few minutes.
export CMAKE_ARGS="-DGGML_CUDA=on -DCMAKE_CUDA_ARCHITECTURES=$ARCH -DGGML_CUDA_FA=off -DGGML_CUDA_NCCL=off -DLLAVA_BUILD=off $EXTRA"
export CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)"
log "building llama-cpp-python: $CMAKE_ARGS"
"$PY" -m pip install --no-index --no-deps --no-build-isolation --no-compile --target "$SITE" -v \
    "$PAYLOAD"/llama_cpp_python-*-slim.tar.gz > "$OUT/build.log" 2>&1 \
    || { tail -60 "$OUT/build.log"; fail "the build (see build.log)"; }
"$PY" -c 'import llama_cpp; assert llama_cpp.llama_supports_gpu_offload(), "built without GPU offload"' \
    || fail "the new llama_cpp cannot offload to the GPU"
log "built"
fi

"$PY" bench/_gguf_skeleton.py restore "$PAYLOAD/model.skeleton" /tmp/model.gguf || fail "rebuilding the model file"
log "offload estimate (what the settings dialog and \`calculon models list\` show)"
"$PY" -m app.llm.library.offload /tmp/model.gguf 4096 | tee "$OUT/offload.txt" || fail "the offload estimate"
COMMON=(--model /tmp/model.gguf --tools-json "$PAYLOAD/calculator_tools.json" --no-write)
log "GPU, every layer"
"$PY" -m bench local_speed "${COMMON[@]}" --gpu-layers -1 --runs "${RUNS:-3}" --tokens "${GPU_TOKENS:-256}" --json "$OUT/gpu.json" \
    2> "$OUT/gpu.err" | tee "$OUT/gpu.md" || fail "the GPU run (see gpu.err)"
log "CPU only"
"$PY" -m bench local_speed "${COMMON[@]}" --gpu-layers 0 --runs "${RUNS:-3}" --tokens "${CPU_TOKENS:-128}" --json "$OUT/cpu.json" \
    2> "$OUT/cpu.err" | tee "$OUT/cpu.md" || fail "the CPU run (see cpu.err)"

"$PY" - "$OUT" <<'EOF' | tee "$OUT/summary.txt"
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
gpu, cpu = (json.loads((out / f"{k}.json").read_text())["results"][0] for k in ("gpu", "cpu"))
print(f"raw llama-cpp-python: GPU {gpu['raw_tok_s']:.1f} tok/s, CPU {cpu['raw_tok_s']:.1f} tok/s, "
      f"GPU/CPU {gpu['raw_tok_s'] / cpu['raw_tok_s']:.1f}x")
print(f"ours:                 GPU {gpu['ours_tok_s']:.1f} tok/s, CPU {cpu['ours_tok_s']:.1f} tok/s, "
      f"GPU/CPU {gpu['ours_tok_s'] / cpu['ours_tok_s']:.1f}x; ours/raw on GPU {gpu['speed_ratio']:.3f}")
EOF
log "done"
