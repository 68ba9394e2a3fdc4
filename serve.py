"""pyclient's dev server: the demo, the offline browser runtime and an embedded AG-UI agent.

The repository's entry (`./dev demo`): `web/` and this checkout's `runtime/`. To serve your own
folder of pages, use the installed command, `pyclient serve DIR` (`pyclient.server.cli`).

    python serve.py                      # http://127.0.0.1:8000, deterministic demo model
    python serve.py --port 9000 --coi    # another port, COOP/COEP for PyScript workers
    python serve.py --model openai:gpt-4o   # a real pydantic-ai model (needs its API key)

The runtime (Pyodide, PyScript, wheels, lock) is built on first run into `runtime/`.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

from devserver.app import WEB, create_app
from devserver.assets import PYODIDE_VERSION, PYSCRIPT_VERSION, build
from pyclient.server._models import model_problem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--model", default=None, metavar="PROVIDER:NAME",
                        help="a pydantic-ai model instead of the deterministic demo model")
    parser.add_argument("--coi", action="store_true",
                        help="send COOP/COEP headers (cross-origin isolation)")
    parser.add_argument("--max-body", type=int, default=1_000_000, metavar="BYTES",
                        help="agent requests larger than this get 413 (default 1000000)")
    parser.add_argument("--body-timeout", type=float, default=30.0, metavar="SECONDS",
                        help="a request body still arriving after this gets 408 (default 30)")
    args = parser.parse_args()
    if args.model is not None and (problem := model_problem(args.model)):
        print(f"serve.py: error: {problem}", file=sys.stderr)
        raise SystemExit(2)
    logging.basicConfig(level=logging.INFO, format="%(message)s")

    started = time.perf_counter()
    runtime = build()
    print(f"runtime ready in {time.perf_counter() - started:.2f} s: {runtime}")
    app = create_app(model=args.model, coi=args.coi, max_body_bytes=args.max_body, body_timeout=args.body_timeout)
    url = f"http://{args.host}:{args.port}/"
    print(f"pyclient dev server on {url}")
    print(f"  /           {WEB} (demo: {url})")
    print(f"  /pyodide/   Pyodide {PYODIDE_VERSION}, wheels and pyodide-lock.json")
    print(f"  /pyscript/  PyScript {PYSCRIPT_VERSION}")
    print(f"  POST /agent AG-UI agent on {args.model or 'the deterministic demo model'}")
    if args.coi:
        print("  COOP/COEP headers on (cross-origin isolated)")

    import uvicorn

    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
