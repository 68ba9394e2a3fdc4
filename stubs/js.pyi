# Stub for Pyodide's `js` module: the page's `globalThis`. Every global (`document`,
# `fetch`, `Object`, `AbortController`, ...) is a JS object reached through a JsProxy, so
# each one is `Any` to the type checker.
from typing import Any

def __getattr__(name: str) -> Any: ...
