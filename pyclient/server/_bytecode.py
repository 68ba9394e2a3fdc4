"""Bytecode for the page (pyclient's wheel, the standard library), compiled by the runtime's own Pyodide under Node.js.

Pyodide's Python writes no `.pyc` (`sys.dont_write_bytecode`), the page's file system is fresh
at every load, and npm's Pyodide ships its standard library (`python_stdlib.zip`) as sources, so
each boot compiled every module it imported from source: pyclient's 120 and about 150 of the
standard library's, most of a warm boot's Python time (bench/README.md, "Boot").
Bytecode must come from the very interpreter that runs it (CPython's magic number changes between
versions, and the host's Python is not 3.14), so `compile_for_pyodide` starts the runtime's own
`pyodide.mjs` in Node.js (which `npm`, already needed to build the runtime, brings) and compiles
there. The `.pyc` files are unchecked-hash ones (PEP 552): the import system loads them without
reading the source's mtime, which unpacking does not keep; the sources stay beside them for
tracebacks. pyclient's go in its wheel's `__pycache__/` folders, the standard library's beside
each source in the zip (where `zipimport` looks first).

```python
from pyclient.server._bytecode import pyc_name

print(pyc_name("pyclient/browser/_chat/_chat.py", "cpython-314"))   # pyclient/browser/_chat/__pycache__/_chat.cpython-314.pyc
```
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["SITE_PACKAGES", "STDLIB_ZIP", "BytecodeError", "compile_for_pyodide", "pyc_name"]

# Node.js side: load Pyodide from the runtime folder, hand it the sources, write what it compiled.
_NODE_SCRIPT = """
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [dir, input, output] = process.argv.slice(1);
const { loadPyodide } = await import(pathToFileURL(dir + "/pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: dir + "/", lockFileContents: readFileSync(input + ".lock", "utf8"),
                                    stdout: () => {}, stderr: (line) => console.error(line) });
pyodide.globals.set("payload", readFileSync(input, "utf8"));
writeFileSync(output, pyodide.runPython(readFileSync(input + ".py", "utf8")));
"""
# Pyodide side: compile each source as the installed module it will be (its path in site-packages).
_PYTHON = """
import base64, json, os, py_compile, sys
out = {"cache_tag": sys.implementation.cache_tag, "pyc": {}}
request = json.loads(payload)
for name, source in request["sources"].items():
    path = os.path.join("/tmp/sources", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as file:
        file.write(base64.b64decode(source))
    # dfile: the module's path in the page, which tracebacks show.
    cfile = py_compile.compile(path, cfile=path + "c", dfile=request["root"] + "/" + name, doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    with open(cfile, "rb") as file:
        out["pyc"][name] = base64.b64encode(file.read()).decode()
json.dumps(out)
"""
SITE_PACKAGES = "/lib/python3.14/site-packages"
"""Where Pyodide installs the wheels: the paths pyclient's modules have in the page."""
STDLIB_ZIP = "/lib/python314.zip"
"""Where Pyodide puts `python_stdlib.zip` in the page (imported from it by `zipimport`)."""


class BytecodeError(RuntimeError):
    """Node.js is missing, or Pyodide under it could not compile pyclient's modules."""


def pyc_name(source: str, cache_tag: str) -> str:
    """Where the import system looks for the bytecode of `source` (a `/`-separated path in the wheel)."""
    folder, _, file = source.rpartition("/")
    return f"{folder + '/' if folder else ''}__pycache__/{file.removesuffix('.py')}.{cache_tag}.pyc"


def compile_for_pyodide(pyodide_dir: Path, lock_info: Mapping[str, Any], sources: Mapping[str, bytes], *,
                        root: str = SITE_PACKAGES, timeout: float = 600) -> tuple[str, dict[str, bytes]]:
    """Compile `sources` (path under `root` → source) with the Pyodide in `pyodide_dir`.

    `lock_info` is the `"info"` of Pyodide's own lock (its ABI version: Pyodide refuses to start
    without it); no package is installed. `root` is where the sources are in the page (their
    code's file names). Returns Pyodide's cache tag ("cpython-314") and each source's `.pyc`.

    Raises:
        BytecodeError: Node.js is not on PATH, or Pyodide failed (a syntax error, a broken
            runtime folder); the message says which, with Node's output.
    """
    node = shutil.which("node")
    if node is None:
        raise BytecodeError("Cannot compile Python for the page: `node` is not on PATH. "
                            "Install Node.js (it comes with npm, which building the runtime needs too).")
    with tempfile.TemporaryDirectory() as tmp:
        given, result = Path(tmp) / "sources.json", Path(tmp) / "pyc.json"
        given.write_text(json.dumps({"root": root, "sources": {
            name: base64.b64encode(data).decode() for name, data in sources.items()}}))
        Path(str(given) + ".py").write_text(_PYTHON)
        Path(str(given) + ".lock").write_text(json.dumps({"info": dict(lock_info), "packages": {}}))
        try:
            done = subprocess.run([node, "--input-type=module", "-e", _NODE_SCRIPT, str(pyodide_dir.resolve()),
                                   str(given), str(result)], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise BytecodeError(f"Pyodide under Node.js did not compile {len(sources)} modules within {timeout:g} s.") from exc
        if done.returncode != 0 or not result.exists():
            raise BytecodeError(f"Pyodide under Node.js could not compile Python for the page (exit {done.returncode}):\n"
                                f"{done.stderr.strip()[-4000:]}")
        out = json.loads(result.read_text())
    return out["cache_tag"], {name: base64.b64decode(data) for name, data in out["pyc"].items()}
