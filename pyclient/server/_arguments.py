"""Builds tool-call arguments valid for a tool's JSON Schema, with values taken from the user's message where sensible.

Only required properties are filled (plus enough for `minProperties`), recursively: strings take
a colour (a hex or CSS colour, a colour name, a gradient), a quoted part or what is left of the
message once the words naming the tool are dropped (a title all of it, a key or name its first
word, a notes-like field beside a title a few sentences: `pyclient.server._string_arguments`);
enums a member the message names, else the schema's default or a neutral member ("normal");
numbers the message's numbers in order, kept within the bounds
(`pyclient.server._number_arguments`); booleans are False when the message negates. `$ref`,
`allOf`, `anyOf`, `oneOf`, `const`, type lists and the usual string formats are followed.

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

import json
import re
from collections.abc import Mapping
from typing import Any

from ._argument_context import ArgumentContext
from ._number_arguments import fit_number
from ._string_arguments import build_string
from ._toolspec import ToolSpec
from ._words import WORD_RE, stem

__all__ = ["build_arguments"]

_NEUTRAL_ENUM_MEMBERS = ("normal", "medium", "default", "standard", "auto")
"""The enum member to take when the message names none and the schema has no default."""


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
    ctx = ArgumentContext(text, root, spec)
    value = _build(root, ctx, name="", depth=0)
    return value if isinstance(value, dict) else {}


def _resolve(schema: Any, ctx: ArgumentContext, depth: int) -> dict[str, Any]:
    if not isinstance(schema, Mapping):
        return {} if schema is not False else {"not": {}}
    resolved: dict[str, Any] = dict(schema)
    return _resolve_mapping(resolved, ctx, depth)


def _resolve_mapping(schema: dict[str, Any], ctx: ArgumentContext, depth: int) -> dict[str, Any]:
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


def _build(schema: Any, ctx: ArgumentContext, *, name: str, depth: int) -> Any:
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
        return fit_number(schema, ctx.take_number(), integer=True)
    if kind == "number":
        return fit_number(schema, ctx.take_number(), integer=False)
    if kind == "boolean":
        return not ctx.negated
    if kind == "null":
        return None
    return build_string(schema, ctx, name=name)


def _build_object(schema: Mapping[str, Any], ctx: ArgumentContext, depth: int) -> dict[str, Any]:
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


def _build_array(schema: Mapping[str, Any], ctx: ArgumentContext, *, name: str, depth: int) -> list[Any]:
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


def _named_in(member: Any, ctx: ArgumentContext) -> bool:
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


def _pick_enum(members: list[Any], ctx: ArgumentContext, default: Any = None) -> Any:
    named = [m for m in members if _named_in(m, ctx)]
    if named:
        return max(named, key=lambda m: len(str(m)))
    if default is not None and default in members:
        return default
    for neutral in _NEUTRAL_ENUM_MEMBERS:
        if neutral in members:
            return neutral
    return members[0]
