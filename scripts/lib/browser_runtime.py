"""A stage of the post-build step (post_build.py): copies the in-browser model's runtime, wllama
(npm @wllama/wllama, pinned in package.json), into dist/ under a folder named by its version,
where the page's browser-model.js imports it from the first time a run uses the "In this
browser" backend. Nothing of it is on the first screen.

The page names the folder itself (arena-core's browser_model::RUNTIME_DIR); this stage fails
the build when package.json's version and that name disagree, so production loads exactly
what the tests load. Copied: the minified ES module, the licence, and the WebAssembly file
with ggml's SIMD kernels put in (target/runtime/wllama.wasm, made by build_runtime.py), whose
SHA-256 must be the one scripts/lib/runtime.sha256 pins.
"""

import hashlib
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
PACKAGE = os.path.join(ROOT, "node_modules", "@wllama", "wllama")
CORE = os.path.join(ROOT, "crates", "arena-core", "src", "browser_model.rs")
BUILT_WASM = os.path.join(ROOT, "target", "runtime", "wllama.wasm")
PIN = os.path.join(HERE, "runtime.sha256")


def runtime_dir():
    source = open(CORE, encoding="utf-8").read()
    match = re.search(r'pub const RUNTIME_DIR: &str = "([^"]+)";', source)
    if not match:
        sys.exit(f"{CORE} names no RUNTIME_DIR")
    return match.group(1)


def built_wasm():
    if not os.path.exists(BUILT_WASM):
        sys.exit(f"{BUILT_WASM} is missing: run scripts/lib/build_runtime.py (ensure.sh does)")
    pinned = open(PIN).read().split()[0]
    built = hashlib.sha256(open(BUILT_WASM, "rb").read()).hexdigest()
    if built != pinned:
        sys.exit(f"{BUILT_WASM} has SHA-256 {built}; scripts/lib/runtime.sha256 pins {pinned}")
    return BUILT_WASM


def main():
    root = os.environ.get("TRUNK_STAGING_DIR", sys.argv[-1])
    manifest = os.path.join(PACKAGE, "package.json")
    if not os.path.exists(manifest):
        sys.exit(f"{PACKAGE} is missing: run npm ci (scripts/serve and scripts/test do)")
    version = json.load(open(manifest, encoding="utf-8"))["version"]
    folder = runtime_dir()
    if folder != f"wllama-{version}-simd":
        sys.exit(f"the page loads {folder}, but node_modules has wllama {version}: make them agree")
    target = os.path.join(root, folder)
    os.makedirs(target, exist_ok=True)
    for source, name in [
        (os.path.join(PACKAGE, "esm", "index.min.js"), "wllama.js"),
        (built_wasm(), "wllama.wasm"),
        (os.path.join(PACKAGE, "LICENCE"), "LICENCE"),
    ]:
        shutil.copyfile(source, os.path.join(target, name))


if __name__ == "__main__":
    main()
