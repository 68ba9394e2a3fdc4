"""The code that runs inside `python_tool`'s sandbox, never in the page's interpreter.

`python_tool` sends this module's source to the sandbox's own Pyodide (assets/sandbox.js), which
runs it once: its last line leaves `run` as the value the worker keeps. `run` executes the model's
code like a notebook cell: in globals kept from call to call, top-level `await` allowed, stdout
and stderr captured within caps, the last expression's `repr`, the files written under
`/output/` (new or changed by this call), and on error the traceback from the code's own first
frame on, in the code's own line numbers. It answers one JSON text. It imports nothing of
pyclient (the sandbox has no pyclient), so it runs on CPython too:

```python
import json, tempfile
from pyclient.browser.toolkit._sandbox_runner import execute

code = "x = 6 * 7\\nprint('hi', end='')\\nx"
answer = json.loads(await execute(code, {}, 100, 100, 1000, root=tempfile.mkdtemp()))
print(answer["stdout"], answer["value"])                      # hi 42
```
"""

from __future__ import annotations

import ast
import base64
import json
import linecache
import inspect
import mimetypes
import os
import sys
import traceback
from pathlib import Path
from typing import Any

__all__ = ["DATA", "OUTPUT", "execute"]

DATA = "data"
OUTPUT = "output"
FILENAME = "<code>"
MAX_FRAMES = 8
"""The traceback's frames the model reads: the last ones, from the code's own first frame on."""
NAMESPACE: dict[str, Any] = {"__name__": "__main__"}
"""The code's globals, kept from one call to the next (the interpreter lives as long as its thread's sandbox)."""


class Capped:
    """A text stream that keeps its first `cap` characters and counts the rest."""

    def __init__(self, cap: int) -> None:
        self.cap, self.size, self.cut = cap, 0, 0
        self.kept: list[str] = []

    def write(self, text: str) -> int:
        room = self.cap - self.size
        if room > 0:
            self.kept.append(text[:room])
            self.size += min(len(text), room)
        self.cut += max(0, len(text) - max(room, 0))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def text(self) -> str:
        return "".join(self.kept)


def _output_files(root: str) -> dict[str, tuple[int, int]]:
    """Each file under `root`: (size, mtime in ns)."""
    found: dict[str, tuple[int, int]] = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            stat = os.stat(path)
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def _write_inputs(files: Any, folder: Path) -> None:
    """The files the page sent (name -> bytes, or a JS object of Uint8Arrays) in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    given = files.as_object_map() if hasattr(files, "as_object_map") else files
    for name, value in given.items():
        data = value.to_bytes() if hasattr(value, "to_bytes") else bytes(value)
        path = folder / Path(str(name)).name   # a name, never a path out of the folder
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


def _traceback(exc: BaseException) -> str:
    """The exception as Python prints it, from the code's first frame on (not the runner's), its last frames."""
    if isinstance(exc, SyntaxError):
        return "".join(traceback.format_exception_only(type(exc), exc)).rstrip()
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((i for i, frame in enumerate(frames) if frame.filename == FILENAME), 0)
    kept = frames[first:]
    lines = ["Traceback (most recent call last):\n"]
    if len(kept) > MAX_FRAMES:
        lines.append(f"  ... {len(kept) - MAX_FRAMES} frames above cut ...\n")
        kept = kept[-MAX_FRAMES:]
    lines += traceback.format_list(kept)
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def _compiled(node: ast.Module | ast.Expression, mode: str) -> tuple[Any, bool]:
    code = compile(node, FILENAME, mode, flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    return eval(code, NAMESPACE), bool(code.co_flags & inspect.CO_COROUTINE)


async def _evaluate(code: str) -> Any:
    """Run `code` in `NAMESPACE`; the value of its last line when that is an expression."""
    try:
        from pyodide.code import eval_code_async  # type: ignore[import-not-found,unused-ignore]
    except ImportError:   # CPython (this module's own tests): what eval_code_async does
        tree = ast.parse(code, FILENAME)
        last = tree.body[-1] if tree.body else None
        tail = None
        if isinstance(last, ast.Expr):
            tree.body.pop()
            tail = ast.Expression(last.value)
        value = None
        for node in (tree, tail):
            if node is None:
                return None
            value, awaitable = _compiled(node, "exec" if isinstance(node, ast.Module) else "eval")
            if awaitable:
                value = await value
        return value
    return await eval_code_async(code, NAMESPACE, filename=FILENAME)


async def execute(code: str, files: Any, stdout_cap: int, stderr_cap: int, output_bytes: int,
                  root: str = "/") -> str:
    """Run one call's code; its outcome as a JSON text (see the module's docstring). The files
    go to `root`/data, the code's own to `root`/output (`/data` and `/output` in the sandbox)."""
    _write_inputs(files, Path(root, DATA))
    output = str(Path(root, OUTPUT))
    Path(output).mkdir(parents=True, exist_ok=True)
    before = _output_files(output)
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)
    out, err = Capped(stdout_cap), Capped(stderr_cap)
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    value: str | None = None
    error: str | None = None
    kind: str | None = None
    try:
        result = await _evaluate(code)
        if result is not None:
            value = repr(result)
    except SystemExit as exc:
        value = f"SystemExit({exc.code!r})" if exc.code not in (None, 0) else None
    except BaseException as exc:  # the model's code: anything it raises is its answer
        kind, error = type(exc).__name__, _traceback(exc)
    finally:
        sys.stdout, sys.stderr = streams
    outputs, skipped, total = [], [], 0
    for path, stamp in sorted(_output_files(output).items()):
        if before.get(path) == stamp:
            continue
        name = os.path.relpath(path, output)
        if total + stamp[0] > output_bytes:
            skipped.append({"name": name, "size": stamp[0]})
            continue
        total += stamp[0]
        mime = mimetypes.guess_type(name)[0] or "application/octet-stream"
        data = Path(path).read_bytes()
        outputs.append({"name": name, "mime": mime, "size": len(data), "data": base64.b64encode(data).decode()})
    return json.dumps({
        "ok": error is None, "stdout": out.text(), "stdout_cut": out.cut, "stderr": err.text(),
        "stderr_cut": err.cut, "value": value, "error": error, "error_type": kind,
        "outputs": outputs, "skipped": skipped,
    })


execute  # noqa: B018 - the value runPython hands the sandbox's worker (see the module's docstring)
