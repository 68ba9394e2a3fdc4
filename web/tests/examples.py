"""Test page for the browser docstring examples: `window.t.run(source, filename)` runs one.

`run` empties `#examples` and creates the elements the examples select in it (`<section
id="chat">`, `<div id="panel">`), compiles the block with top-level await allowed, runs it in
a fresh namespace (awaiting it when it is a coroutine), waits a moment for callbacks that print
later (a MutationObserver, a task) and returns JSON: `error` (the traceback, or null) and
`prints`, `[line, text]` for each `print` call, `line` being the line it was called from.
"""

import ast
import asyncio
import builtins
import inspect
import json
import sys
import traceback

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document

# How long callbacks may take to print after the block returned (observers, tasks).
SETTLE_S = 0.05
ELEMENTS = (("section", "chat"), ("div", "panel"))


def fresh_elements():
    host = document.getElementById("examples")
    host.replaceChildren()
    for tag, element_id in ELEMENTS:
        element = document.createElement(tag)
        element.id = element_id
        host.append(element)


def recording_print(prints):
    """A `print` for a block's namespace: records `[caller's line, text]`, and still prints."""

    def print_(*args, sep=" ", end="\n", file=None, flush=False):
        if file is None or file is sys.stdout:
            text = (" " if sep is None else sep).join(str(arg) for arg in args)
            prints.append([sys._getframe(1).f_lineno, text])
        builtins.print(*args, sep=sep, end=end, file=file, flush=flush)

    return print_


async def run(source, filename):
    fresh_elements()
    prints = []
    namespace = {"__name__": "docstring_example", "print": recording_print(prints)}
    error = None
    try:
        code = compile(source, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(code, namespace)  # a coroutine when the block awaits at top level
        if inspect.iscoroutine(result):
            await result
        await asyncio.sleep(SETTLE_S)
    except BaseException:  # the test reports it with the block's id
        error = traceback.format_exc()
    return json.dumps({"error": error, "prints": prints})


api = {"run": run}
# Kept for the page's life: these proxies are the test's handle on Python.
js.window.t = to_js({name: create_proxy(fn) for name, fn in api.items()}, dict_converter=js.Object.fromEntries)
document.documentElement.dataset.pyclient = "ready"
