"""Fits a number from the user's message into a number schema: its bounds (draft 4's boolean form too) and `multipleOf`.

Without a number in the message the value starts at 0. An integer schema gets an `int`; a
number schema an `int` when the value is whole, else a `float`.

```python
from pyclient.server._number_arguments import fit_number

print(fit_number({"maximum": 10}, 30.0, integer=True))                    # 10
print(fit_number({"exclusiveMinimum": 0, "multipleOf": 0.5}, None, integer=False))  # 1
print(fit_number({"minimum": 1, "maximum": 2}, 1.25, integer=False))      # 1.25
```
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["fit_number"]


def fit_number(schema: Mapping[str, Any], value: float | None, *, integer: bool) -> int | float:
    """`value` (0 for None) moved into what `schema` admits.

    Args:
        schema: the number or integer schema.
        value: the number the message gives, or None.
        integer: True for an integer schema.

    Returns:
        The value, an `int` for an integer schema or a whole number.
    """
    lo = schema.get("minimum")
    hi = schema.get("maximum")
    ex_lo = schema.get("exclusiveMinimum")
    ex_hi = schema.get("exclusiveMaximum")
    if ex_lo is True:  # draft 4: the boolean turns minimum exclusive
        ex_lo, lo = lo, None
    if ex_hi is True:
        ex_hi, hi = hi, None
    if isinstance(ex_lo, bool):
        ex_lo = None
    if isinstance(ex_hi, bool):
        ex_hi = None
    multiple = schema.get("multipleOf")
    if value is None:
        value = 0.0

    # The admissible interval [low, high] for the value.
    low = -math.inf
    high = math.inf
    if isinstance(lo, (int, float)):
        low = max(low, float(lo))
    if isinstance(hi, (int, float)):
        high = min(high, float(hi))
    if integer:
        low = math.ceil(low) if low != -math.inf else low
        high = math.floor(high) if high != math.inf else high
        if isinstance(ex_lo, (int, float)):
            low = max(low, math.floor(ex_lo) + 1)
        if isinstance(ex_hi, (int, float)):
            high = min(high, math.ceil(ex_hi) - 1)
    else:
        if isinstance(ex_lo, (int, float)):
            gap = 1.0 if not isinstance(ex_hi, (int, float)) and high == math.inf else None
            if gap is None:
                top = min(high, float(ex_hi) if isinstance(ex_hi, (int, float)) else high)
                gap = (top - ex_lo) / 2 if top > ex_lo else 1.0
            if value <= ex_lo:
                value = ex_lo + gap
        if isinstance(ex_hi, (int, float)) and value >= ex_hi:
            bottom = max(low, float(ex_lo) if isinstance(ex_lo, (int, float)) else low)
            value = (ex_hi + bottom) / 2 if bottom != -math.inf else ex_hi - 1.0
    value = min(max(value, low), high)

    if isinstance(multiple, (int, float)) and not isinstance(multiple, bool) and multiple > 0:
        value = _fit_multiple(value, float(multiple), low, high, ex_lo, ex_hi)
    if integer:
        return int(round(value))
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _fit_multiple(value: float, multiple: float, low: float, high: float, ex_lo: Any, ex_hi: Any) -> float:
    def ok(v: float) -> bool:
        if v < low or v > high:
            return False
        if isinstance(ex_lo, (int, float)) and v <= ex_lo:
            return False
        if isinstance(ex_hi, (int, float)) and v >= ex_hi:
            return False
        return True

    base = round(value / multiple)
    for delta in (0, 1, -1, 2, -2, 3, -3):
        candidate = (base + delta) * multiple
        if multiple.is_integer():
            candidate = float(int(candidate))
        if ok(candidate):
            return candidate
    if low != -math.inf:
        candidate = math.ceil(low / multiple) * multiple
        if ok(candidate):
            return candidate
    return base * multiple
