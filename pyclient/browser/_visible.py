"""Invisible characters made visible: bidi controls and zero-width characters in text the chat shows.

Tool arguments and results are untrusted text. A right-to-left override (U+202E) makes
`"\\u202eecila"` display as "alice"; a zero-width space hides inside a name; Unicode tag
characters carry text nobody sees. Wherever the chat shows arguments or results, each such
character is shown as a marker instead, `⟨U+202E⟩`, which the chat puts in a span of its own
(class `pyclient-invisible`, styled apart from the text around it).

What is marked (`INVISIBLE`): the bidi embeddings, overrides and isolates (U+202A–U+202E,
U+2066–U+2069), the directional marks (U+200E, U+200F, U+061C), the zero-width characters
(U+200B–U+200D, U+2060, U+FEFF), the invisible operators (U+2061–U+2064), U+180E and the
tag characters (U+E0000–U+E007F). Pure Python (no `js`): the DOM side is in
`pyclient.browser._nodes`. See https://unicode.org/reports/tr9/ and CVE-2021-42574.

```python
from pyclient.browser._visible import split_invisible, visible

print(visible("\\u202eecila"))             # ⟨U+202E⟩ecila
print(split_invisible("a\\u200bb"))        # [('a', False), ('⟨U+200B⟩', True), ('b', False)]
```
"""

from __future__ import annotations

import re

__all__ = ["INVISIBLE", "marker", "split_invisible", "visible"]

INVISIBLE = re.compile(
    "[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff\u2061-\u2064\u180e"
    "\U000e0000-\U000e007f]"
)
"""One character that is shown as a marker."""


def marker(char: str) -> str:
    """The visible marker of one invisible character: `⟨U+202E⟩`."""
    return f"\u27e8U+{ord(char):04X}\u27e9"


def split_invisible(text: str) -> list[tuple[str, bool]]:
    """`text` cut into runs: `(plain text, False)` and `(marker, True)` for each invisible character.

    Linear in `len(text)`; a text without invisible characters is one run (none when empty).
    """
    runs: list[tuple[str, bool]] = []
    start = 0
    for match in INVISIBLE.finditer(text):
        if match.start() > start:
            runs.append((text[start:match.start()], False))
        runs.append((marker(match.group()), True))
        start = match.end()
    if start < len(text):
        runs.append((text[start:], False))
    return runs


def visible(text: str) -> str:
    """`text` with every invisible character replaced by its marker (for a title or a log line)."""
    return INVISIBLE.sub(lambda match: marker(match.group()), text)
