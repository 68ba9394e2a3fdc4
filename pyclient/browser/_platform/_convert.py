"""JS values a handler returns (or the page submits), as the Python data a tool result is made of.

Pyodide hands Python what JS gives: `localStorage.getItem()` of a missing key is `jsnull`, a
`JSON.parse` result is a `JsProxy`. A tool result must be JSON data, so the page's platform
converts before the result is encoded: `null` and `undefined` become None, arrays and plain
objects become lists and dicts (nested values too), and any other JS object (a `Map`, a
`Date`, a DOM node, a class instance) fails the call with a message that says how to convert
it. Python containers are walked, so a dict holding a JS array converts as well.

```python
import js
from pyclient.browser._platform._convert import to_python

print(to_python(js.localStorage.getItem("no such key")))      # None
print(to_python(js.JSON.parse('{"a": [1, null, {"b": 2}]}')))  # {'a': [1, None, {'b': 2}]}
```
"""

from __future__ import annotations

from typing import Any

import js
from pyodide.ffi import JsNull, JsProxy

from ..._base._errors import ToolError

__all__ = ["to_python"]

# Deeper than this the value is left as it is (the encoder reports what it cannot write).
_MAX_DEPTH = 40


def to_python(value: Any) -> Any:
    """`value` with every JS `null`, array and plain object in it made Python data.

    Raises:
        ToolError: it holds a JS object that is not JSON data; the message names its type
            and how to convert it.
    """
    return _convert(value, 0)


def _convert(value: Any, depth: int) -> Any:
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, JsNull):
        return None
    if depth >= _MAX_DEPTH:
        return value
    if isinstance(value, JsProxy):
        if js.Array.isArray(value) or _plain_object(value):
            return _convert(value.to_py(depth=1), depth + 1)
        raise ToolError(_not_data(value))
    if isinstance(value, dict):
        return {key: _convert(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_convert(item, depth + 1) for item in value]
    return value


def _plain_object(value: JsProxy) -> bool:
    """An object literal, `JSON.parse` output or `Object.create(null)`: its prototype is
    `Object.prototype` (whose own prototype is null) or null; a class instance's is not."""
    if str(js.Object.prototype.toString.call(value)) != "[object Object]":
        return False
    prototype = js.Object.getPrototypeOf(value)
    return _is_null(prototype) or _is_null(js.Object.getPrototypeOf(prototype))


def _is_null(value: Any) -> bool:
    return value is None or isinstance(value, JsNull)


def _not_data(value: JsProxy) -> str:
    kind = str(js.Object.prototype.toString.call(value))[8:-1]  # "[object Map]" -> "Map"
    try:
        name = str(value.constructor.name) or kind
    except Exception:  # an object without a constructor
        name = kind
    return (
        f"a JS {name} object, which is not JSON data. Convert it in the handler before returning it: "
        "`value.to_py()` for a Map or a typed array, `str(value)` for text, or a dict of the fields "
        "the model needs (for a DOM element, e.g. its `textContent`)."
    )
