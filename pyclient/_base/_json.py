"""JSON from untrusted peers, read within limits; text repaired so it can always be sent again.

Two hazards in what servers, models and pages hand pyclient. Nesting: `json.loads` recurses
once per level, so 10,000 nested `[` raise `RecursionError` on CPython and overflow the
WebAssembly stack in Pyodide, which kills the interpreter; `loads()` measures the depth first,
in one scan that never recurses, and refuses anything deeper than `MAX_DEPTH` (and CPython's
4,300-digit integer limit, with the same error). Lone UTF-16 surrogates: a server may split an
escaped pair (`"\\ud83d\\ude00"`) across two deltas, and a half alone cannot be encoded as
UTF-8, so the next request body could never be written; `repair()` joins the pairs and
replaces the lone halves with U+FFFD.

```python
from pyclient._base._json import JSONLimitError, loads, repair, too_deep

assert repair("\\ud83d" + "\\ude00") == "\\U0001f600" and repair("a\\ud83d") == "a\\ufffd"
assert loads('{"a": [1, 2]}') == {"a": [1, 2]}
assert too_deep('{"a": ' + "[" * 50) and not too_deep('{"a": [[1]]}')
try:
    loads("[" * 10_000 + "]" * 10_000)
except JSONLimitError as exc:
    print(exc)         # JSON nested deeper than 40 levels (at least 41) ...
```
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_DOCUMENT_DEPTH", "JSONLimitError", "has_surrogates", "loads", "repair", "repair_all", "too_deep"]

MAX_DEPTH = 40
"""Deepest nesting of arrays and objects `loads` accepts (the event's own object counts).
AG-UI events nest a handful of levels, tool arguments and shared state a few dozen at most.
The bound is what the page can send back: shared state returns in the next request, and
pydantic-core in Pyodide serializes about 49 levels (CPython 255); anything pyclient accepts
must stay sendable, or one event would make every later request of the thread fail."""

MAX_DOCUMENT_DEPTH = MAX_DEPTH - 1
"""Deepest nesting of a shared state or an activity's content, however it was made: what a
`STATE_SNAPSHOT` or `ACTIVITY_SNAPSHOT` can bring within `MAX_DEPTH` (the event's object is
one level). Patches that would nest deeper are refused (`pyclient._base._json_patch`): paths are
text, so a few deltas of ever longer paths could otherwise build a state too deep to copy,
save or send."""

# A string token as a whole (so brackets inside strings are skipped in C), or one bracket.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")


class JSONLimitError(ValueError):
    """JSON that is valid but beyond what pyclient reads: nested too deep, or a huge integer."""


def _depth_exceeds(text: str, limit: int) -> bool:
    # Fast path: fewer opening brackets than the limit cannot nest deeper than it.
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for match in _TOKENS.finditer(text):
        token = match.group()
        if token == "[" or token == "{":
            depth += 1
            if depth > limit:
                return True
        elif token == "]" or token == "}":
            depth -= 1
    return False


def too_deep(text: str, max_depth: int = MAX_DEPTH) -> bool:
    """Whether `text` nests deeper than `max_depth`: one linear scan, no parse, so it also
    measures JSON that is not complete yet (streaming tool arguments, before a partial parse)."""
    return _depth_exceeds(text, max_depth)


def loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, refusing nesting deeper than `max_depth` before it parses anything.

    Raises:
        JSONLimitError: nested deeper than `max_depth`, or an integer too long to convert
            (CPython's limit: 4,300 digits).
        json.JSONDecodeError: not JSON.
    """
    if _depth_exceeds(text, max_depth):
        raise JSONLimitError(
            f"JSON nested deeper than {max_depth} levels (at least {max_depth + 1}): pyclient does not "
            "read it, because decoding it would exhaust the stack (in the browser, the whole page)."
        )
    try:
        return json.loads(text)
    except RecursionError:  # a max_depth above what this interpreter's stack holds
        raise JSONLimitError(f"JSON nested too deep for this interpreter's stack (limit {max_depth} levels).") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion"
        raise JSONLimitError(f"JSON with a number pyclient cannot read: {exc}.") from None


def has_surrogates(text: str) -> bool:
    """True when `text` holds a UTF-16 surrogate code point (paired or lone)."""
    return _SURROGATE.search(text) is not None


def repair(text: str) -> str:
    """`text` with surrogate pairs joined into their character and lone halves replaced by U+FFFD.

    Text without surrogates (nearly all of it) is returned as is after one scan.
    """
    if text.isascii() or _SURROGATE.search(text) is None:  # isascii(): a flag, no scan
        return text
    # UTF-16 with surrogatepass writes each half as its code unit; decoding joins the pairs
    # and replaces what is left alone.
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def repair_all(value: Any) -> Any:
    """`value` (JSON data) with every string `repair`ed, keys included."""
    if isinstance(value, str):
        return repair(value)
    if isinstance(value, dict):
        return {repair(k) if isinstance(k, str) else k: repair_all(v) for k, v in value.items()}
    if isinstance(value, list):
        return [repair_all(v) for v in value]
    return value
