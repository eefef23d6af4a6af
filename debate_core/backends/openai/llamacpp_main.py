"""The process that serves a GGUF model with llama.cpp's server (the ``xllamacpp`` wheel) on loopback.

What it does: ``python -m debate_core.backends.openai.llamacpp_main --model
FILE --port N [--threads T] [--parallel P] [--ctx C] [--alias NAME]`` starts
xllamacpp's embedded llama.cpp HTTP server on 127.0.0.1 and keeps it until the
process is stopped (SIGTERM or SIGINT) or its parent dies (``--parent PID``).
The whole context is shared by the parallel slots (``kv_unified``), so one
long debate is not limited to a slot's share.

What it does not do: wait for readiness or talk HTTP (``llamacpp.LlamaCppServer``
starts this process and waits until ``/v1/models`` answers).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="llamacpp_main")
    parser.add_argument("--model", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--alias", default="local")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--parent", type=int, default=None)
    args = parser.parse_args(argv)
    import xllamacpp  # heavy: only in this process

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    params.n_ctx = args.ctx
    params.kv_unified = True
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.port = args.port
    params.hostnames = ["127.0.0.1"]
    params.model_alias = {args.alias}
    server = xllamacpp.Server(params)
    stop = False

    def _stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    while not stop:
        time.sleep(0.5)
        if args.parent is not None and os.getppid() != args.parent:
            break  # the app that started us is gone
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
