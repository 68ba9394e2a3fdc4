"""Invisible characters made visible: bidi controls and zero-width characters in text the chat shows.

Tool arguments and results are untrusted text. A right-to-left override (U+202E) makes
`"\\u202eecila"` display as "alice"; a zero-width space hides inside a name; Unicode tag
characters carry text nobody sees. Wherever the chat shows text a server, a model or a page
sent, each run of such characters is shown as one marker instead, `⟨U+202E⟩`, which the chat
puts in a span of its own (class `pyclient-invisible`, styled apart from the text around it,
its title saying how many characters and which).

A run costs one marker however long it is: 500,000 zero-width spaces are `⟨U+200B×500000⟩`,
one span, not 500,000 (a span each would freeze the page). A run of
mixed characters lists its first `MARKER_GROUPS` groups and how many there are in all. Past
`MARKED_RUNS` runs in one text, the rest of it has its markers written as plain text (still
visible, no span each): text that alternates letters and invisible characters cannot make
the page build a span per character either.

What is marked (`INVISIBLE`): the bidi embeddings, overrides and isolates (U+202A–U+202E,
U+2066–U+2069), the directional marks (U+200E, U+200F, U+061C), the zero-width characters
(U+200B–U+200D, U+2060, U+FEFF), the invisible operators (U+2061–U+2064), U+180E and the
tag characters (U+E0000–U+E007F). Pure Python (no `js`): the DOM side is in
`pyclient.browser._page._nodes`. See https://unicode.org/reports/tr9/ and CVE-2021-42574.

```python
from pyclient.browser._page._visible import split_invisible, visible

print(visible("\\u202eecila"))                 # ⟨U+202E⟩ecila
print(split_invisible("a\\u200bb"))            # [('a', None), ('⟨U+200B⟩', 'invisible character U+200B'), ('b', None)]
print(visible("a" + "\\u200b" * 3 + "\\u202e"))  # a⟨U+200B×3 U+202E⟩
```
"""

from __future__ import annotations

import re

__all__ = ["INVISIBLE", "MARKED_RUNS", "MARKER_GROUPS", "marker", "split_invisible", "title", "visible"]

_CHARS = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b-\u200d\u2060\ufeff\u2061-\u2064\u180e\U000e0000-\U000e007f"

INVISIBLE = re.compile(f"[{_CHARS}]")
"""One character that is shown as (part of) a marker."""

_RUN = re.compile(f"[{_CHARS}]+")
_GROUP = re.compile(r"(.)\1*", re.DOTALL)  # one character repeated

MARKER_GROUPS = 4
"""The most groups (one character, repeated) a marker lists; a longer run says how many in all."""

MARKED_RUNS = 200
"""The most runs of one text shown as marker spans; the rest have their markers as plain text."""


def _groups(run: str) -> tuple[list[tuple[str, int]], bool]:
    """The first `MARKER_GROUPS` groups of `run` (character, count), and whether more follow."""
    groups: list[tuple[str, int]] = []
    for match in _GROUP.finditer(run):
        if len(groups) == MARKER_GROUPS:
            return groups, True
        groups.append((match.group(1), match.end() - match.start()))
    return groups, False


def marker(run: str) -> str:
    """The visible marker of a run of invisible characters: `⟨U+202E⟩`, `⟨U+200B×500000⟩`,
    `⟨U+202E U+2066⟩`, and for a run of more groups `⟨U+200B U+200C U+200B U+200C … 9 in all⟩`."""
    groups, more = _groups(run)
    words = [f"U+{ord(char):04X}" + (f"\u00d7{count}" if count > 1 else "") for char, count in groups]
    if more:
        words.append(f"\u2026 {len(run)} in all")
    return f"\u27e8{' '.join(words)}\u27e9"


def title(run: str) -> str:
    """A marker's tooltip: how many invisible characters, and which (`invisible character U+202E`)."""
    groups, more = _groups(run)
    names = ", ".join(dict.fromkeys(f"U+{ord(char):04X}" for char, _ in groups)) + (", \u2026" if more else "")
    return f"invisible character {names}" if len(run) == 1 else f"{len(run):,} invisible characters: {names}"


def split_invisible(text: str) -> list[tuple[str, str | None]]:
    """`text` cut into pieces: `(plain text, None)`, and `(marker, title)` for each run of invisible
    characters (past `MARKED_RUNS` runs, the rest is one plain piece with its markers as text).

    Linear in `len(text)`; a text without invisible characters is one piece (none when empty).
    """
    pieces: list[tuple[str, str | None]] = []
    start = 0
    for match in _RUN.finditer(text):
        if len(pieces) >= 2 * MARKED_RUNS:  # a marker and the text before it, each
            break
        if match.start() > start:
            pieces.append((text[start:match.start()], None))
        run = match.group()
        pieces.append((marker(run), title(run)))
        start = match.end()
    if start < len(text):
        pieces.append((visible(text[start:]), None))
    return pieces


def visible(text: str) -> str:
    """`text` with every run of invisible characters replaced by its marker (for a title or a log line)."""
    made: dict[str, str] = {}  # text that alternates letters and one run costs one marker, not one each

    def replace(match: re.Match[str]) -> str:
        run = match.group()
        shown = made.get(run)
        if shown is None:
            shown = made[run] = marker(run)
        return shown

    return _RUN.sub(replace, text)
