"""Builds the page's model runtime: wllama's `wllama.wasm` (npm @wllama/wllama, the version
package.json pins) with ggml's hand-written wasm SIMD kernels in place of the generic ones it
ships (docs/upstream/wasm-simd-kernels.md says why it ships those).

Inputs, all from registry packages, all pinned:
- the runtime: node_modules/@wllama/wllama (package-lock.json pins its integrity);
- ggml's sources: the crate llama-cpp-sys-2, fetched by `cargo fetch` of
  scripts/lib/ggml-sources (its Cargo.lock pins the crate's checksum);
- the compiler: zig's clang (PyPI `ziglang`, the version ensure.sh installs).

Steps: copy `ggml-cpu/arch/wasm/quants.c`, fix its rounding (below), compile it for wasm64
into a relocatable object with scripts/lib/kernels.c (which includes it and puts a faster
Q5_0 dot product in place of ggml's), and link that object into the runtime
(splice_kernels.py).

The rounding fix: the SIMD `quantize_row_q8_0` and `quantize_row_q8_1` convert x/d to an
integer with `wasm_i32x4_trunc_sat_f32x4` alone, which truncates; ggml's reference (and every
other architecture's kernel) rounds to nearest. `wasm_f32x4_nearest` first makes them round.

The output's SHA-256 must equal scripts/lib/runtime.sha256: the file the tests ran is the file
production serves. Outputs go to target/runtime/ (wllama.wasm, harness.wasm for the kernel
test, report.json, kernels.o); a stamp of the inputs skips the work when nothing changed.

usage: build_runtime.py ZIG_PYTHON
"""

import glob
import hashlib
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
OUT = os.path.join(ROOT, "target", "runtime")
RUNTIME = os.path.join(ROOT, "node_modules", "@wllama", "wllama", "esm", "wasm", "wllama.wasm")
SOURCES_MANIFEST = os.path.join(HERE, "ggml-sources", "Cargo.toml")
PIN = os.path.join(HERE, "runtime.sha256")

TRUNCATING = "const v128_t vi = wasm_i32x4_trunc_sat_f32x4(v);"
ROUNDING = "const v128_t vi = wasm_i32x4_trunc_sat_f32x4(wasm_f32x4_nearest(v));"

# As ggml's own release builds: optimised, asserts off, SIMD on. `__wasi_api_h` keeps the WASI
# system-call header (written for wasm32) out: the kernels make no system call.
CFLAGS = ["-target", "wasm64-wasi", "-c", "-O3", "-g0", "-DNDEBUG", "-msimd128", "-mrelaxed-simd", "-D__wasi_api_h"]


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def ggml_root():
    metadata = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked", "--manifest-path", SOURCES_MANIFEST],
        check=True,
        capture_output=True,
        text=True,
    )
    for package in json.loads(metadata.stdout)["packages"]:
        if package["name"] == "llama-cpp-sys-2":
            return os.path.join(os.path.dirname(package["manifest_path"]), "llama.cpp", "ggml")
    sys.exit("build_runtime: llama-cpp-sys-2 is not in scripts/lib/ggml-sources' lock file")


def zig_include(zig_python):
    lib = subprocess.run(
        [zig_python, "-c", "import ziglang, os; print(os.path.dirname(ziglang.__file__))"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    include = os.path.join(lib, "lib", "libc", "include")
    return [os.path.join(include, "wasm-wasi-musl"), os.path.join(include, "generic-musl")]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    zig_python = sys.argv[1]
    if not os.path.exists(RUNTIME):
        sys.exit(f"build_runtime: {RUNTIME} is missing: run npm ci (ensure.sh does)")
    subprocess.run(["cargo", "fetch", "--locked", "--manifest-path", SOURCES_MANIFEST], check=True)
    ggml = ggml_root()
    quants = os.path.join(ggml, "src", "ggml-cpu", "arch", "wasm", "quants.c")
    zig_version = subprocess.run(
        [zig_python, "-m", "ziglang", "version"], check=True, capture_output=True, text=True
    ).stdout.strip()

    inputs = {
        "runtime": sha256(RUNTIME),
        "quants.c": sha256(quants),
        "zig": zig_version,
        "scripts": {
            name: sha256(os.path.join(HERE, name))
            for name in ("build_runtime.py", "kernels.c", "splice_kernels.py", "wasm_binary.py", "runtime.sha256")
        },
    }
    stamp = os.path.join(OUT, "inputs.json")
    wanted = [os.path.join(OUT, f) for f in ("wllama.wasm", "harness.wasm", "report.json")]
    if all(map(os.path.exists, wanted)) and os.path.exists(stamp):
        if json.load(open(stamp)) == inputs:
            print(f"runtime: up to date in {OUT}")
            return

    os.makedirs(OUT, exist_ok=True)
    # A build that fails part-way leaves outputs of other inputs: no stamp may vouch for them.
    if os.path.exists(stamp):
        os.remove(stamp)
    source = open(quants, encoding="utf-8").read()
    if source.count(TRUNCATING) != 2:
        sys.exit("build_runtime: quants.c no longer has the two truncating conversions the fix is for")
    source = source.replace(TRUNCATING, ROUNDING)
    # The copy compiles outside the tree: its two relative includes name the tree's files.
    cpu = os.path.join(ggml, "src", "ggml-cpu")
    source = source.replace('#include "../../quants.h"', f'#include "{cpu}/quants.h"')
    source = source.replace('#include "../../ggml-cpu-impl.h"', f'#include "{cpu}/ggml-cpu-impl.h"')
    patched = os.path.join(OUT, "quants.c")
    open(patched, "w", encoding="utf-8").write(source)

    includes = []
    for path in zig_include(zig_python):
        includes += ["-isystem", path]
    # OUT first: kernels.c includes the patched quants.c written there.
    for path in (OUT, os.path.join(ggml, "include"), os.path.join(ggml, "src"), cpu):
        includes += ["-I", path]
    kernels = os.path.join(OUT, "kernels.o")
    subprocess.run(
        [zig_python, "-m", "ziglang", "cc", *CFLAGS, *includes, os.path.join(HERE, "kernels.c"), "-o", kernels],
        check=True,
    )
    subprocess.run(
        [
            sys.executable,
            os.path.join(HERE, "splice_kernels.py"),
            RUNTIME,
            kernels,
            os.path.join(OUT, "wllama.wasm.part"),
            "--harness",
            os.path.join(OUT, "harness.wasm"),
            "--report",
            os.path.join(OUT, "report.json"),
        ],
        check=True,
    )
    built = sha256(os.path.join(OUT, "wllama.wasm.part"))
    pinned = open(PIN).read().split()[0]
    if built != pinned:
        sys.exit(
            f"build_runtime: the runtime built from the pinned inputs has SHA-256 {built}, "
            f"but scripts/lib/runtime.sha256 pins {pinned}. If an input changed on purpose, "
            "run the kernel and model tests on the new file, then pin its hash."
        )
    os.replace(os.path.join(OUT, "wllama.wasm.part"), os.path.join(OUT, "wllama.wasm"))
    json.dump(inputs, open(stamp, "w"), indent=2)
    print(f"runtime: {OUT}/wllama.wasm, SHA-256 {built}")


if __name__ == "__main__":
    main()
