#!/usr/bin/env bash
# Prepare, on a machine with PyPI, what bench/gpu_check.sh needs on the GPU machine
# (which reaches nothing outside). Everything lands in bench/data/gpu/ (git-ignored),
# well under the 64 MiB that may travel:
#   llama_cpp_python-<version>-slim.tar.gz  the sdist without its git history, vocab
#                                           test models, docs and other GPU backends
#   wheels/                                 pure/py3.12 wheels missing on that machine
#   model.skeleton(.json)                   the built-in GGUF's header and tensor table
#   calculator_tools.json                   the calculator's tool schemas (no MCP there)
# Usage: bash bench/gpu_prepare.sh   (from the repository root, with .venv set up)
set -euo pipefail

VERSION="${LLAMA_CPP_VERSION:-0.3.36}"
PY=".venv/bin/python"
DEST="bench/data/gpu"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DEST/wheels"

"$PY" -m pip download -q --no-deps --no-binary :all: "llama-cpp-python==$VERSION" -d "$WORK"
tar xzf "$WORK/llama_cpp_python-$VERSION.tar.gz" -C "$WORK"
SRC="$WORK/llama_cpp_python-$VERSION"
VENDOR="$SRC/vendor/llama.cpp"
rm -rf "$SRC/.git" "$SRC/docs" "$SRC/examples" "$SRC/tests" "$SRC/docker"
rm -rf "$VENDOR"/{docs,benches,media,examples,tests,tools,scripts,conversion,gguf-py,app,pocs,skills,licenses}
rm -f "$VENDOR"/models/*.gguf "$VENDOR"/vendor/miniaudio/miniaudio.h
for backend in cann et hexagon metal musa opencl openvino sycl virtgpu vulkan webgpu zdnn zendnn; do
    rm -rf "$VENDOR/ggml/src/ggml-$backend"
done
tar czf "$DEST/llama_cpp_python-$VERSION-slim.tar.gz" -C "$WORK" "llama_cpp_python-$VERSION"

# llama-cpp-python needs diskcache; the app's local backend needs jsonschema. The GPU
# image has numpy, jinja2, typing-extensions, attrs, scikit-build-core, cmake and ninja.
"$PY" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$DEST/wheels" diskcache==5.6.3 "jsonschema>=4.20,<5" jsonschema-specifications referencing rpds-py

MODEL="$("$PY" - <<'EOF'
from app.llm.local.model_file import ensure_default_model
from app import paths
print(ensure_default_model(paths.cache_dir() / "models", lambda value, text: None))
EOF
)"
"$PY" bench/_gguf_skeleton.py cut "$MODEL" "$DEST/model.skeleton"

"$PY" - "$DEST/calculator_tools.json" <<'EOF'
import asyncio, json, sys
from app.servers.calculator import server
tools = asyncio.run(server.list_tools())
json.dump([{"name": t.name, "description": t.description or "", "input_schema": t.input_schema} for t in tools],
          open(sys.argv[1], "w"), indent=1)
EOF
du -sh "$DEST"
