"""Build this checkout's browser runtime into `runtime/`: `pyclient.server.build` with the repository's folder.

The builder itself lives in the package (`pyclient/server/_runtime.py`) so an installed
pyclient (the pytest plugin) can build the same runtime; this module names the checkout's
output folder and is the `python -m devserver.assets` command.

```python
from devserver.assets import build

runtime = build()            # -> Path("runtime"), ready to serve
print(sorted(p.name for p in (runtime / "pyodide").glob("*.whl")))
```
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from pyclient.server import PYODIDE_VERSION, PYSCRIPT_VERSION
from pyclient.server import build as build_runtime

__all__ = ["PYODIDE_VERSION", "PYSCRIPT_VERSION", "ROOT", "RUNTIME", "build"]

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "runtime"


def build(runtime: Path = RUNTIME, *, package: Path = ROOT / "pyclient", force: bool = False) -> Path:
    """Build (or confirm) the checkout's runtime folder and return it (see `pyclient.server.build`)."""
    return build_runtime(runtime, package=package, force=force)


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Build the offline browser runtime.")
    parser.add_argument("--force", action="store_true", help="rebuild everything")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started = time.perf_counter()
    runtime = build(force=args.force)
    print(f"runtime ready in {runtime} ({time.perf_counter() - started:.2f} s)")


if __name__ == "__main__":
    main()
