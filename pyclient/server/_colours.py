"""Finds the CSS colour a message names: a colour value, a colour name (up to three words) or a gradient it describes.

"a gradient from red to blue, left to right" becomes `linear-gradient(to right, red, blue)`;
a gradient function written out (`radial-gradient(...)`) is taken as is.

```python
from pyclient.server._colours import find_colour

print(find_colour("make it light blue"))                            # lightblue
print(find_colour("a gradient from #1e3a8a to teal, left to right"))  # linear-gradient(to right, #1e3a8a, teal)
print(find_colour("make it bigger"))                                # None
```
"""

from __future__ import annotations

import re

from ._words import COLOUR_NAMES, COLOUR_VALUE_RE, mask_colour_values

__all__ = ["find_colour"]

_GRADIENT_FUNCTION_RE = re.compile(r"\b(?:repeating-)?(?:linear|radial|conic)-gradient\(", re.I)
_GRADIENT_WORD_RE = re.compile(r"\bgradients?\b", re.I)
# "from left to right" / "top to bottom" / "diagonal": the direction of a gradient the message describes.
_GRADIENT_DIRECTIONS = (
    (re.compile(r"\bdiagonal(?:ly)?\b", re.I), "to bottom right"),
    (re.compile(r"\b(?:left to right|to the right|rightwards?)\b", re.I), "to right"),
    (re.compile(r"\b(?:right to left|to the left|leftwards?)\b", re.I), "to left"),
    (re.compile(r"\b(?:bottom to top|upwards?)\b", re.I), "to top"),
    (re.compile(r"\b(?:top to bottom|downwards?|vertical(?:ly)?)\b", re.I), "to bottom"),
)


def find_colour(text: str) -> str | None:
    """A CSS background for `text`: a gradient function as written, a gradient the message
    describes ("a gradient from red to blue" → "linear-gradient(red, blue)"), else its first colour."""
    function = _GRADIENT_FUNCTION_RE.search(text)
    if function:
        match = COLOUR_VALUE_RE.match(text, function.start())
        if match:
            return match.group(0)
    colours = [c for c in _colours(text) if not _GRADIENT_FUNCTION_RE.match(c)]
    if len(colours) >= 2 and _GRADIENT_WORD_RE.search(text):
        direction = next((css for pattern, css in _GRADIENT_DIRECTIONS if pattern.search(text)), None)
        return f"linear-gradient({', '.join([direction, *colours] if direction else colours)})"
    return colours[0] if colours else None


def _colours(text: str) -> list[str]:
    """The colours `text` names, in order: colour values as written ("#1e3a8a", "rgb(1, 2, 3)")
    and CSS colour names, also written as two or three words ("light blue", "dark slate gray")."""
    found: list[tuple[int, str]] = [(m.start(), m.group(0)) for m in COLOUR_VALUE_RE.finditer(text)]
    words = list(re.finditer(r"[A-Za-z]+", mask_colour_values(text)))
    i = 0
    while i < len(words):
        for size in (3, 2, 1):
            joined = "".join(w.group(0).lower() for w in words[i:i + size])
            if len(words[i:i + size]) == size and joined in COLOUR_NAMES:
                found.append((words[i].start(), joined))
                i += size
                break
        else:
            i += 1
    return [value for _, value in sorted(found)]
