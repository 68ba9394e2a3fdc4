"""`python_tool()`: Python the model writes, run in a sandbox beside the page, never in the page's interpreter.

Each thread gets its own interpreter, a Pyodide in a dedicated worker started by a hidden,
sandboxed iframe (assets/sandbox.js): no network (its policy refuses every request, the page's
own origin included), no page (no DOM, cookies or storage of the page's origin), no pyclient.
It lives from call to call like a notebook kernel; a timeout, a crash or a reload starts a new
one, and the model is told. The person's attachments are `/data/<name>`; what the code writes
under `/output/` comes back as files (images the model sees, the rest as documents).

```python
from pyclient import Agent
from pyclient.browser.toolkit import python_tool

run_python = python_tool(timeout_s=20, memory_mb=256, packages=["markdown-it-py"])
agent = Agent("main", url="/agent", client_tools=[run_python])
print(run_python.name, run_python.requires_approval)       # run_python False
```
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from typing import Any

from ..._base._errors import ConfigurationError, ToolError
from ..._base._json import loads
from ..._tools._client_tool import ClientTool, client_tool
from ..._tools._context import ToolContext
from .._page._page_promise import settled
from .._page._page_window import page_window
from ._page import missing
from ._python_rules import SandboxLimits, answer_of, restarted, sandbox_request
from ._rules import check_limit

__all__ = ["python_tool"]

PageFiles = Mapping[str, bytes] | Callable[[], Mapping[str, bytes]]
"""Files the page puts in `/data/`: a mapping of name to bytes, or a function called at each call."""


def _runtime_url() -> str:
    """Where the page's own Pyodide came from: the sandbox boots from the same files. In pyclient's
    runtime Pyodide's files sit beside its lock (`lockfileBaseUrl`: Pyodide's public name for it)."""
    import pyodide_js

    base = getattr(pyodide_js, "lockfileBaseUrl", None)
    if missing(base) or not str(base):
        raise ToolError("The Python sandbox cannot find the page's Pyodide runtime (no lockfileBaseUrl). Tell the user.")
    return str(base)


@functools.cache
def _runner_source() -> str:
    """The runner's source, read once: the sandbox runs it at its start."""
    return resources.files(__package__).joinpath("_sandbox_runner.py").read_text(encoding="utf-8")


def python_tool(
    *,
    name: str = "run_python",
    timeout_s: float = 30.0,
    memory_mb: int = 512,
    packages: Sequence[str] = (),
    requires_approval: bool = False,
    attachments: bool = True,
    files: PageFiles | None = None,
    max_output_chars: int = 20_000,
    max_file_bytes: int = 5_000_000,
    description: str | None = None,
) -> ClientTool:
    """A tool that runs the model's Python in a sandbox of its own, one interpreter per thread.

    The code runs like a notebook cell: top-level `await` works, the last expression's `repr`
    is returned, variables persist to the next call of the same thread. The standard library
    (`sqlite3`, `csv`, `statistics`, `json`, `zlib`, ...) is there; `packages` adds pure-Python
    wheels of the runtime's lock (pyclient's runtime: pydantic, markdown-it-py, jsonpatch, ...).

    Args:
        name: the tool's name.
        timeout_s: how long one call may run; past it the sandbox's worker is ended (the page never
            waits on it) and the next call starts a new interpreter.
        memory_mb: the interpreter's memory ceiling; an allocation past it fails (MemoryError).
        packages: names of wheels in the runtime's lock the code may import (with their dependencies).
        requires_approval: the person approves each call, seeing the code, before it runs.
        attachments: the files the person sent in the thread are readable as `/data/<name>`.
        files: more files for `/data/` (name -> bytes, or a function returning them at each call).
        max_output_chars: the most characters kept of stdout, of stderr and of the result's `repr`.
        max_file_bytes: the most bytes of `/output/` files one call returns (the rest are named).
        description: the tool's description for the model; a default says all of the above.

    Raises:
        ConfigurationError: an invalid bound.
    """
    check_limit(timeout_s, "timeout_s", minimum=0.001)
    check_limit(memory_mb, "memory_mb", minimum=64)
    check_limit(max_output_chars, "max_output_chars")
    check_limit(max_file_bytes, "max_file_bytes")
    if isinstance(packages, str):
        raise ConfigurationError(f"packages={packages!r} is a string: pass a list of names, e.g. packages=[{packages!r}].")
    limits = SandboxLimits(timeout_s, int(memory_mb), int(max_output_chars), int(max_file_bytes))
    wheels = tuple(packages)
    tool_name = name

    async def run_python(code: str, ctx: ToolContext) -> Any:
        """Args:
            code: the Python to run
        """
        sandbox: Any = getattr(page_window(), "pyclientSandbox", None)
        if missing(sandbox):
            raise ToolError(
                f"{tool_name} cannot run here: the page does not load pyclient.js (its <script type=\"module\" "
                "src=\".../pyclient.js\"> tag), which hosts the Python sandbox. Tell the user.")
        given: dict[str, bytes] = {}
        if attachments:
            for media in ctx.files:
                if media.filename and media.data is not None:
                    given[media.filename] = media.data
        extra = files() if callable(files) else (files or {})
        given.update(extra)
        key = f"{tool_name}/{ctx.thread_id}"
        request = sandbox_request(code, given, limits, packages=wheels, runner=_runner_source(),
                                  index_url=_runtime_url())
        try:
            # Shielded: the page's promise settles once the sandbox is ended below, into a
            # future nobody awaits any more (cancelled, it would raise InvalidStateError).
            outcome = await asyncio.shield(settled(sandbox, "run", key, request))
        except asyncio.CancelledError:
            sandbox.end(key)   # Stop, unmount, the call's own timeout: the worker goes with it
            raise
        if outcome.error is not None:
            raise ToolError(f"The Python sandbox failed ({outcome.error}: {outcome.message}). Tell the user.")
        # The runner's JSON, written inside the sandbox, where the model's code could have changed it.
        answer = loads(str(outcome.value))
        if not isinstance(answer, dict):
            raise ToolError("The Python sandbox answered something that is not an object. Tell the user.")
        return answer_of(answer, limits, tool=tool_name, restarted=restarted(ctx.messages, tool_name, ctx.tool_call_id))

    packages_line = f" Packages besides the standard library: {', '.join(wheels)}." if wheels else ""
    return client_tool(
        run_python, name=tool_name, requires_approval=requires_approval,
        # The page's own limit is a margin over the sandbox's: the sandbox answers its timeout itself.
        timeout_s=timeout_s + 120,
        description=description or (
            "Run Python code in a sandboxed interpreter in the user's browser and return what it printed "
            "(stdout, stderr), the repr of its last expression and the files it wrote under /output/ "
            "(images are shown to you). Top-level await works. The interpreter is kept between calls in this "
            "conversation, like a notebook: variables and imports persist. It has no network and no access "
            "to the page. The files the user attached are in /data/." + packages_line
            + f" Each call may run {timeout_s:g} s and use {memory_mb} MB."),
    )
