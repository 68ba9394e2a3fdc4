"""Writes a pydantic `ValidationError` as short lines a model can act on: each field, what it expected and received.

A field is named by its path in the input (`items[2].name`), without pydantic's union-member
tags (`int`, `str`...) in it; the errors of one field across union members share a line. A
tool's bad arguments and a handler's result that fails its output schema are both told this way.

```python
from pydantic import TypeAdapter, ValidationError
from pyclient._tools._validation_errors import describe_validation_error

data = {"items": [{"name": "a"}, {"name": 3}]}
try:
    TypeAdapter(dict[str, list[dict[str, str]]]).validate_python(data)
except ValidationError as exc:
    print(describe_validation_error(exc, data, heading="Bad arguments:", footer="Fix them."))
# prints "- items[1].name: expected a valid string; received 3"
```
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import ErrorDetails, ValidationError, to_json

__all__ = ["describe_validation_error"]


def describe_validation_error(
    exc: ValidationError,
    data: Any,
    *,
    heading: str,
    footer: str,
    root: str = "(arguments)",
    max_lines: int = 8,
) -> str:
    """Write a pydantic `ValidationError` as a few short lines a model can act on.

    Each line names the failing field by its path (`items[2].name`), what was expected and
    what was received. Errors of one field across union members share a line.

    Args:
        exc: the validation error.
        data: the input that was validated, used to tell real keys from union-member tags.
        heading: the first line.
        footer: the last line (the fix).
        root: how to name the input itself when an error is about all of it.
        max_lines: at most this many field lines; the rest are counted.

    Returns:
        The message.
    """
    grouped: dict[str, list[ErrorDetails]] = {}
    for error in exc.errors(include_url=False):
        grouped.setdefault(_error_path(error, data), []).append(error)
    lines = [heading]
    for path, errors in list(grouped.items())[:max_lines]:
        lines.append(f"- {path or root}: {_describe_errors(errors, top_level='.' not in path and '[' not in path)}")
    if len(grouped) > max_lines:
        lines.append(f"- … and {len(grouped) - max_lines} more")
    lines.append(footer)
    return "\n".join(lines)


def _error_path(error: ErrorDetails, data: Any) -> str:
    """Render `loc` as `a.b[2].c`, skipping pydantic's union-member tags (`int`, `str`, …)."""
    loc = list(error["loc"])
    parts: list[str] = []
    current: Any = data
    for position, key in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(current, Mapping) and key in current:
            current = current[key]
        elif isinstance(key, int) and isinstance(current, (list, tuple)) and -len(current) <= key < len(current):
            current = current[key]
        elif last and error["type"] in ("missing", "extra_forbidden", "unexpected_keyword_argument"):
            current = None
        elif isinstance(key, int):
            current = None  # e.g. a missing tuple item
        else:
            continue  # a union-member tag: not part of the path in the input
        parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if parts else str(key)))
    return "".join(parts)


def _describe_errors(errors: list[ErrorDetails], *, top_level: bool) -> str:
    first = errors[0]
    if first["type"] == "missing":
        return "required, but missing"
    if first["type"] == "extra_forbidden":
        what = "not a parameter of this tool" if top_level else "not an accepted field"
        return f"{what} (received {_received(first['input'])})"
    expected = []
    for error in errors:
        message = error["msg"].removeprefix("Input should be ").removeprefix("Value error, ")
        if message not in expected:
            expected.append(message)
    return f"expected {' or '.join(expected)}; received {_received(first['input'])}"


def _received(value: Any, limit: int = 60) -> str:
    try:
        text = to_json(value, fallback=repr).decode()
    except Exception:  # a value even the fallback cannot write
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"
