"""Builds a string argument from the user's message, by the parameter's name and the string schema.

In order: a `format` gets a fixed valid value (an email, a URL, today's date...); a colour-like
name (background, color, fill...) the colour the message names (`pyclient.server._colours`);
else a quoted part of the message; else what is left of the message once the words naming
the tool are dropped: a title all of it, capitalised (or the word after "called"), a key or name
its first word, a notes-like field beside a title or key a few sentences. `pattern`,
`minLength` and `maxLength` are then kept.

```python
from pyclient.server._argument_context import ArgumentContext
from pyclient.server._string_arguments import build_string
from pyclient.server._toolspec import ToolSpec

ctx = ArgumentContext("create a task to water the plants", {}, ToolSpec("create_task"))
print(build_string({"type": "string"}, ctx, name="title"))   # Water the plants
print(build_string({"type": "string"}, ctx, name="key"))     # water
ctx = ArgumentContext('say "hello there"', {}, None)
print(build_string({"maxLength": 5}, ctx, name="text"))      # hello
```
"""

from __future__ import annotations

import datetime as _dt
import re
import uuid
from collections.abc import Mapping
from typing import Any

from ._argument_context import ArgumentContext
from ._colours import find_colour
from ._toolspec import ToolSpec, tool_keys
from ._words import STOPWORDS, WEAK_WORDS, word_keys

__all__ = ["build_string"]

_COLOUR_PARAM_HINTS = ("color", "colour", "background", "bg", "fill", "foreground", "tint", "hue")
_SHORT_PARAM_HINTS = ("key", "name", "id", "label", "tag", "slug", "user", "username")
"""Parameters that take one word of the message ("a note called groceries" → key "groceries")."""
_TITLE_PARAM_HINTS = ("title", "subject", "headline", "caption")
"""Parameters that take all the message says beyond the tool's own words, capitalised
("create a task to water the plants" → title "Water the plants"); one word after "called"."""
_LONG_PARAM_HINTS = ("notes", "note", "description", "details", "body", "comment", "comments")
"""Parameters for a longer text: beside a title or key parameter (which takes the message's
words) they get a few sentences, long enough for their arguments to stream in visibly."""
_NAMING_RE = re.compile(r"\b(?:called|named|titled|labell?ed)\s+(\S+)", re.I)

_QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![A-Za-z])'([^']+)'(?![A-Za-z])")


def build_string(schema: Mapping[str, Any], ctx: ArgumentContext, *, name: str) -> str:
    """The string argument `name` takes from the message, valid for `schema` (see the module docstring)."""
    fmt = schema.get("format")
    lowered = name.lower()
    value: str | None = None
    if fmt == "email":
        value = "user@example.com"
    elif fmt in ("uri", "url", "iri", "uri-reference"):
        value = "https://example.com/"
    elif fmt == "date":
        value = _dt.date.today().isoformat()
    elif fmt == "date-time":
        value = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
    elif fmt == "time":
        value = "12:00:00"
    elif fmt == "uuid":
        value = str(uuid.uuid4())
    if value is None and any(h in lowered for h in _COLOUR_PARAM_HINTS):
        value = find_colour(ctx.text)
    if value is None:
        quoted = _QUOTED_RE.search(ctx.text)
        if quoted:
            value = next(g for g in quoted.groups() if g is not None)
    if value is None:
        rest = _remainder(ctx.text, ctx.tool)
        named = _NAMING_RE.search(ctx.text)
        short = _hinted(lowered, _SHORT_PARAM_HINTS)
        title = _hinted(lowered, _TITLE_PARAM_HINTS)
        if title and named:
            value = named.group(1).strip(".,;:!?\"'")
            ctx.short_taken = ctx.short_taken or value
        elif short and rest:
            value = rest.split()[0].strip(".,;:!?\"'")
            ctx.short_taken = ctx.short_taken or value
        elif title and rest:
            value = _capitalised(rest)
        elif _hinted(lowered, _LONG_PARAM_HINTS) and any(
                _hinted(s.lower(), _SHORT_PARAM_HINTS + _TITLE_PARAM_HINTS) for s in ctx.siblings):
            value = _long_text(rest or ctx.text.strip() or name, ctx)
        else:
            if ctx.short_taken and rest.startswith(ctx.short_taken):
                rest = _remainder(rest[len(ctx.short_taken):], ctx.tool) or rest
            value = rest or ctx.text.strip() or name or "text"
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        value = _fit_pattern(value, pattern)
    min_len = schema.get("minLength")
    max_len = schema.get("maxLength")
    if isinstance(min_len, int) and len(value) < min_len:
        value = value + "x" * (min_len - len(value))
    if isinstance(max_len, int) and len(value) > max_len:
        value = value[:max_len]
    return value


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _long_text(subject: str, ctx: ArgumentContext) -> str:
    """A few sentences about `subject`, for a notes-like field: long enough to stream in visibly."""
    return (
        f"{_capitalised(subject)}. Asked for in the chat: \"{ctx.text.strip()}\". "
        "Written by the pyclient demo model, which has no language model behind it: these notes "
        "are long on purpose, so that the call's arguments stream in over several chunks."
    )


def _remainder(text: str, tool: ToolSpec | None) -> str:
    """The text left after stripping, at both ends, the stopwords and the words naming the tool."""
    if tool is not None:
        name_keys, desc_keys = tool_keys(tool)
        naming = set(name_keys) | desc_keys
    else:
        naming = set()
    tokens = list(re.finditer(r"\S+", text))

    def droppable(token: str) -> bool:
        word = token.strip(".,;:!?\"'()[]").lower()
        if not word:
            return True
        if word in STOPWORDS or word in WEAK_WORDS or (tool is not None and word == tool.name.lower()):
            return True
        return bool(word_keys(word) & naming)

    start, end = 0, len(tokens)
    while start < end and droppable(tokens[start].group(0)):
        start += 1
    while end > start and droppable(tokens[end - 1].group(0)):
        end -= 1
    if start >= end:
        return ""
    return text[tokens[start].start(): tokens[end - 1].end()].strip(" .,;:!?")


def _hinted(name: str, hints: tuple[str, ...]) -> bool:
    """True when a parameter name is one of `hints` or ends with one ("note_title")."""
    return any(name == h or name.endswith("_" + h) for h in hints)


def _fit_pattern(value: str, pattern: str) -> str:
    try:
        regex = re.compile(pattern)
    except re.error:
        return value
    candidates = [value, *value.split(), "a", "A", "0", "1", "a1", "abc", "x" * 8, "2024-01-01", ""]
    for candidate in candidates:
        if regex.search(candidate):
            return candidate
    return value
