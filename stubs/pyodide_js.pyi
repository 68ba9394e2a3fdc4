# Stub for Pyodide's `pyodide_js` module: the JS `pyodide` API object (`loadPackage`,
# `_module`, `version`, ...), a JsProxy whose attributes are `Any` to the type checker.
from typing import Any

def __getattr__(name: str) -> Any: ...
