"""Builds tool-call arguments valid for a tool's JSON Schema, with values taken from the user's message where sensible.

Only required properties are filled (plus enough for `minProperties`), recursively: strings take
a colour (a hex or CSS colour, a colour name, a gradient), a quoted part or what is left of the
message once the words naming the tool are dropped (a title all of it, a key or name its first
word, a notes-like field beside a title a few sentences); enums a member the message names, else
the schema's default or a neutral member ("normal"); numbers the message's numbers in order,
kept within the bounds; booleans are False when the message negates. `$ref`, `allOf`, `anyOf`,
`oneOf`, `const`, type lists and the usual string formats are followed.

```python
from pyclient.server._arguments import build_arguments

schema = {
    "type": "object",
    "properties": {"background": {"type": "string"}, "size": {"type": "integer", "maximum": 10}},
    "required": ["background", "size"],
}
assert build_arguments(schema, "make it blue, size 30") == {"background": "blue", "size": 10}
assert build_arguments(schema, "a gradient from #1e3a8a to teal, size 3") == {
    "background": "linear-gradient(#1e3a8a, teal)", "size": 3}
```
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import uuid
from collections.abc import Mapping
from typing import Any

from ._toolspec import ToolSpec, tool_keys
from ._words import (
    COLOUR_NAMES,
    COLOUR_VALUE_RE,
    NUMBER_RE,
    STOPWORDS,
    WEAK_WORDS,
    WORD_RE,
    mask_colour_values,
    stem,
    word_keys,
)

__all__ = ["build_arguments"]

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

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100,
}

_NEGATIONS = frozenset(
    "no not off disable disabled false hide hidden never without stop dont don't isn't nope".split()
)

_COLOUR_PARAM_HINTS = ("color", "colour", "background", "bg", "fill", "foreground", "tint", "hue")
_SHORT_PARAM_HINTS = ("key", "name", "id", "label", "tag", "slug", "user", "username")
"""Parameters that take one word of the message ("a note called groceries" → key "groceries")."""
_TITLE_PARAM_HINTS = ("title", "subject", "headline", "caption")
"""Parameters that take all the message says beyond the tool's own words, capitalised
("create a task to water the plants" → title "Water the plants"); one word after "called"."""
_LONG_PARAM_HINTS = ("notes", "note", "description", "details", "body", "comment", "comments")
"""Parameters for a longer text: beside a title or key parameter (which takes the message's
words) they get a few sentences, long enough for their arguments to stream in visibly."""
_NEUTRAL_ENUM_MEMBERS = ("normal", "medium", "default", "standard", "auto")
"""The enum member to take when the message names none and the schema has no default."""
_NAMING_RE = re.compile(r"\b(?:called|named|titled|labell?ed)\s+(\S+)", re.I)

_QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![A-Za-z])'([^']+)'(?![A-Za-z])")


class _ArgContext:
    def __init__(self, text: str, root: Mapping[str, Any], tool: ToolSpec | None):
        self.text = text
        self.root = root
        self.tool = tool
        plain = mask_colour_values(text)  # "#1e3a8a" is a colour, not the numbers 1 and 3
        numbers = [float(m.group(0)) for m in NUMBER_RE.finditer(plain)]
        for word in WORD_RE.findall(plain.lower()):
            if word in _NUMBER_WORDS:
                numbers.append(float(_NUMBER_WORDS[word]))
        self.numbers = numbers
        self.next_number = 0
        self.words = [w.lower() for w in WORD_RE.findall(text)]
        self.negated = any(w in _NEGATIONS for w in self.words) or "n't" in text.lower()
        self.short_taken: str | None = None
        self.siblings: frozenset[str] = frozenset()  # the property names of the object being built

    def take_number(self) -> float | None:
        if not self.numbers:
            return None
        value = self.numbers[min(self.next_number, len(self.numbers) - 1)]
        self.next_number += 1
        return value


def build_arguments(schema: Mapping[str, Any] | None, text: str, *, tool: Any = None) -> dict[str, Any]:
    """Arguments for a tool whose parameters are `schema`, valid for it, taken from `text` where sensible.

    Required properties only (optional ones are omitted), recursively:
    strings take a colour named in the text for colour-like names (background, color, fill…), a
    quoted part of the text, else the text left after the words that name the tool; enums take
    a member named in the text, else the first; numbers take the numbers of the text in order,
    kept within minimum/maximum/multipleOf; booleans are False when the text negates ("off",
    "not", "disable"…), else True; arrays get `minItems` items; `$ref`, `allOf`, `anyOf`,
    `oneOf`, `const` and type lists are followed.
    """
    spec = ToolSpec.of(tool) if tool is not None else None
    root = dict(schema or {})
    ctx = _ArgContext(text, root, spec)
    value = _build(root, ctx, name="", depth=0)
    return value if isinstance(value, dict) else {}


def _resolve(schema: Any, ctx: _ArgContext, depth: int) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        return {} if schema is not False else {"not": {}}
    resolved: dict[str, Any] = dict(schema)
    return _resolve_mapping(resolved, ctx, depth)


def _resolve_mapping(schema: dict[str, Any], ctx: _ArgContext, depth: int) -> dict[str, Any]:
    seen = 0
    while "$ref" in schema and seen < 16:
        seen += 1
        ref = schema.pop("$ref")
        target: Any = None
        if isinstance(ref, str) and ref.startswith("#"):
            target = ctx.root
            for token in [t for t in ref[1:].split("/") if t]:
                token = token.replace("~1", "/").replace("~0", "~")
                if isinstance(target, Mapping) and token in target:
                    target = target[token]
                else:
                    target = None
                    break
        if isinstance(target, Mapping):
            schema = {**target, **schema}
    if "allOf" in schema:
        merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
        for sub in schema["allOf"]:
            sub = _resolve(sub, ctx, depth)
            for key, val in sub.items():
                if key == "properties":
                    merged["properties"] = {**merged.get("properties", {}), **val}
                elif key == "required":
                    merged["required"] = list(dict.fromkeys([*merged.get("required", []), *val]))
                else:
                    merged.setdefault(key, val)
        schema = merged
    return schema


def _schema_type(schema: Mapping[str, Any]) -> str | None:
    t = schema.get("type")
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        return str(non_null[0]) if non_null else (str(t[0]) if t else None)
    if t is not None:
        return str(t)
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")):
        return "number"
    if any(k in schema for k in ("minLength", "maxLength", "pattern", "format")):
        return "string"
    return None


def _build(schema: Any, ctx: _ArgContext, *, name: str, depth: int) -> Any:
    schema = _resolve(schema, ctx, depth)
    if depth > 12:
        return None
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _pick_enum(schema["enum"], ctx, schema.get("default"))
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            resolved = [_resolve(b, ctx, depth + 1) for b in branches]
            usable = [b for b in resolved if _schema_type(b) != "null" or "const" in b or "enum" in b]
            branch = usable[0] if usable else resolved[0]
            rest = {k: v for k, v in schema.items() if k != key}
            return _build({**rest, **branch}, ctx, name=name, depth=depth + 1)
    kind = _schema_type(schema)
    if kind == "object":
        return _build_object(schema, ctx, depth)
    if kind == "array":
        return _build_array(schema, ctx, name=name, depth=depth)
    if kind == "integer":
        return _build_number(schema, ctx, integer=True)
    if kind == "number":
        return _build_number(schema, ctx, integer=False)
    if kind == "boolean":
        return not ctx.negated
    if kind == "null":
        return None
    return _build_string(schema, ctx, name=name)


def _build_object(schema: Mapping[str, Any], ctx: _ArgContext, depth: int) -> dict[str, Any]:
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = [r for r in (schema.get("required") or []) if isinstance(r, str)]
    names = list(required)
    min_props = schema.get("minProperties") or 0
    for prop in props:
        if len(names) >= min_props:
            break
        if prop not in names:
            names.append(prop)
    result: dict[str, Any] = {}
    outer = ctx.siblings
    ctx.siblings = frozenset(names)
    for prop in names:
        sub = props.get(prop)
        if sub is None:
            extra = schema.get("additionalProperties")
            sub = extra if isinstance(extra, Mapping) else {}
        result[prop] = _build(sub, ctx, name=prop, depth=depth + 1)
        ctx.siblings = frozenset(names)  # a nested object set its own
    ctx.siblings = outer
    return result


def _build_array(schema: Mapping[str, Any], ctx: _ArgContext, *, name: str, depth: int) -> list[Any]:
    min_items = int(schema.get("minItems") or 0)
    max_items = schema.get("maxItems")
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        out = [_build(s, ctx, name=name, depth=depth + 1) for s in prefix]
        items = schema.get("items")
        while len(out) < min_items:
            out.append(_build(items if isinstance(items, Mapping) else {}, ctx, name=name, depth=depth + 1))
        return out
    items = schema.get("items")
    items = _resolve(items if isinstance(items, Mapping) else {}, ctx, depth + 1)
    unique = bool(schema.get("uniqueItems"))
    enum = items.get("enum") if isinstance(items.get("enum"), list) else None
    if enum:
        named = [m for m in enum if _named_in(m, ctx)]
        out = list(dict.fromkeys(map(_freeze, named)).keys()) if unique else named
        out = [_thaw(v) for v in out] if unique else out
        pool = [m for m in enum if m not in out] if unique else list(enum)
        i = 0
        while len(out) < min_items and (pool or not unique):
            out.append(pool[i % len(pool)] if not unique else pool.pop(0))
            i += 1
        if isinstance(max_items, int):
            out = out[:max_items]
        return out
    built: list[Any] = []
    for i in range(min_items):
        value = _build(items, ctx, name=name, depth=depth + 1)
        if unique:
            value = _distinct(value, built, i)
        built.append(value)
    return built


def _freeze(value: Any) -> Any:
    return json.dumps(value, sort_keys=True)


def _thaw(value: Any) -> Any:
    return json.loads(value)


def _distinct(value: Any, existing: list[Any], index: int) -> Any:
    if value not in existing:
        return value
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        candidate = value
        while candidate in existing:
            candidate += 1
        return candidate
    if isinstance(value, str):
        return f"{value} {index + 1}"
    return value


def _named_in(member: Any, ctx: _ArgContext) -> bool:
    if member is None:
        return False
    text = str(member).lower()
    if isinstance(member, bool):
        return False
    if isinstance(member, (int, float)):
        return any(float(member) == n for n in ctx.numbers)
    if not text:
        return False
    if re.search(rf"(?<![\w]){re.escape(text)}(?![\w])", ctx.text.lower()):
        return True
    member_stems = [stem(w) for w in WORD_RE.findall(text)]
    message_stems = {stem(w) for w in ctx.words}
    return bool(member_stems) and all(s in message_stems for s in member_stems)


def _pick_enum(members: list[Any], ctx: _ArgContext, default: Any = None) -> Any:
    named = [m for m in members if _named_in(m, ctx)]
    if named:
        return max(named, key=lambda m: len(str(m)))
    if default is not None and default in members:
        return default
    for neutral in _NEUTRAL_ENUM_MEMBERS:
        if neutral in members:
            return neutral
    return members[0]


def _build_number(schema: Mapping[str, Any], ctx: _ArgContext, *, integer: bool) -> int | float:
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
    value = ctx.take_number()
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


def _find_colour(text: str) -> str | None:
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


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _long_text(subject: str, ctx: _ArgContext) -> str:
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


def _build_string(schema: Mapping[str, Any], ctx: _ArgContext, *, name: str) -> str:
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
        value = _find_colour(ctx.text)
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
