"""The dev server's embedded AG-UI agent: a pydantic-ai `Agent` served through `AGUIAdapter`, by default on a deterministic demo model that needs no key and no network.

The demo model reads the latest user message and calls the page's client tools that best
match its words, with arguments built from each tool's JSON Schema ("make it blue" with a
`change_background(background: str)` tool calls `change_background({"background": "blue"})`).
Several matching tools are called in one response (parallel calls). Once the tool results come
back it answers with text that quotes each result verbatim. Tool-call arguments arrive in
several `TOOL_CALL_ARGS` chunks and text in several `TEXT_MESSAGE_CONTENT` deltas. Two trigger
words help client tests: "slowly" spreads the stream over about 3 s (0.2 s between deltas and
between argument chunks), so `stop()` can be tried mid-run; "interleaved" makes the argument
chunks of parallel calls alternate between the calls, as some providers stream them.

`build_agent(model)` takes a pydantic-ai model string ("openai:gpt-4o") for users with a key;
`agent_endpoint()` wraps the agent into a Starlette endpoint that also refuses oversized (413)
and malformed (4xx, never 500) bodies. The matcher itself (`plan_tool_calls`,
`build_arguments`, `describe_tool_results`) is plain Python that other test servers reuse.

```python
import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

from devserver.agent import agent_endpoint

app = Starlette(routes=[Route("/agent", agent_endpoint(), methods=["POST"])])
uvicorn.run(app, host="127.0.0.1", port=8000)
```
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime as _dt
import json
import math
import re
import uuid
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

__all__ = [
    "DEMO_MODEL_NAME",
    "PlannedCall",
    "ToolSpec",
    "agent_endpoint",
    "build_agent",
    "build_arguments",
    "chunk_text",
    "demo_stream",
    "describe_tool_results",
    "no_tool_answer",
    "plan_tool_calls",
    "score_tool",
    "wants_interleaving",
    "wants_slow",
]

DEMO_MODEL_NAME = "pyclient-demo"
"""The name the demo model reports (`FunctionModel(model_name=...)`)."""

SLOW_PAUSE_S = 0.2
"""Pause between deltas when the user message contains "slowly"."""

SLOW_TEXT_DELTAS = 15
"""Number of text deltas of a slow answer: 14 pauses of 0.2 s, about 3 s in all."""

SCORE_THRESHOLD = 2.0
"""A tool is called only when the message words it matches are worth at least this much."""

_INSTRUCTIONS = (
    "You are the assistant of a web page. The page offers client tools that run in the "
    "user's browser; call them when they fit the request, then tell the user what they returned."
)

# --------------------------------------------------------------------------------------------
# Words
# --------------------------------------------------------------------------------------------

_STOPWORDS = frozenset(
    """
    a an the and or but if then else also just too very so
    i me my mine we us our you your yours he him his she her it its they them their
    this that these those there here what which who whom whose
    is are was were be been being am do does did done doing have has had
    can could would should will shall may might must
    to of for with on in at by from into onto over under about as up down out off
    please pls make let lets want like need some any all each every now
    tool tools call calls run function functions use using slowly slow interleaved interleave
    page thing things something stuff way value values given current
    saying says called named
    """.split()
)
"""Words that never count for matching. "off"/"not" are kept out of here on purpose only for booleans."""

# Words that name a generic action: a match on them alone is weak.
_WEAK_WORDS = frozenset(
    """
    change set update modify get make do turn switch give put show display open add create new
    """.split()
)

_BASIC_COLOURS = (
    "red blue green yellow orange purple pink black white gray grey brown cyan magenta teal navy "
    "lime maroon olive silver gold violet indigo beige coral salmon turquoise lavender crimson "
    "aqua fuchsia khaki tan plum orchid chocolate tomato ivory azure mintcream skyblue steelblue "
    "lightblue darkblue lightgreen darkgreen lightgray lightgrey darkgray darkgrey darkred "
    "lightpink hotpink deeppink royalblue dodgerblue seagreen forestgreen gainsboro whitesmoke "
    "rebeccapurple transparent"
).split()

_COLOUR_RE = re.compile(
    r"#[0-9a-fA-F]{3,8}\b|\b(?:rgb|rgba|hsl|hsla)\([^)]*\)",
)

_SYNONYM_GROUPS: dict[str, tuple[str, ...]] = {
    "color": ("color", "colour", "colors", "colours", "background", "backgrounds", "bg", "paint",
              "fill", "tint", "shade", "hue", "theme", *_BASIC_COLOURS),
    "show": ("show", "display", "render", "present", "reveal", "visible", "view", "pop"),
    "hide": ("hide", "conceal", "invisible", "dismiss"),
    "greet": ("greet", "greeting", "greetings", "hello", "hi", "hey", "welcome", "salute",
              "salutation", "howdy"),
    "save": ("save", "store", "remember", "persist", "keep", "record", "memorize", "memorise",
             "write"),
    "read": ("read", "fetch", "load", "retrieve", "recall", "lookup"),
    "delete": ("delete", "remove", "erase", "clear", "forget", "wipe"),
    "copy": ("copy", "clipboard", "paste", "duplicate"),
    "select": ("select", "selection", "selected", "highlight", "highlighted"),
    "time": ("time", "clock", "date", "today", "hour", "hours", "minute", "timezone"),
    "calc": ("sum", "plus", "calculate", "compute", "total", "math", "multiply", "add",
             "addition", "subtract", "minus", "divide"),
    "search": ("search", "find", "query", "look"),
    "notify": ("alert", "notify", "notification", "warn", "warning", "toast", "popup", "banner"),
    "note": ("note", "notes", "memo", "reminder", "todo"),
    "count": ("count", "counter", "increment", "tally", "decrement"),
    "title": ("title", "heading", "header", "headline"),
    "size": ("size", "bigger", "smaller", "larger", "zoom", "scale", "font", "resize"),
    "weather": ("weather", "temperature", "forecast", "rain", "sunny"),
    "navigate": ("navigate", "visit", "link", "url", "goto", "redirect"),
    "theme": ("theme", "dark", "light", "mode"),
    "confirm": ("confirm", "ask", "approve", "question", "prompt"),
    "random": ("random", "dice", "roll", "pick", "choose", "shuffle"),
    "scroll": ("scroll", "top", "bottom"),
    "storage": ("storage", "localstorage", "persisted", "saved"),
}

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100,
}

_NEGATIONS = frozenset(
    "no not off disable disabled false hide hidden never without stop dont don't isn't nope".split()
)

_COLOUR_PARAM_HINTS = ("color", "colour", "background", "bg", "fill", "foreground", "tint", "hue")
_SHORT_PARAM_HINTS = ("key", "name", "title", "id", "label", "tag", "slug", "user", "username")

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z']*|\d+(?:\.\d+)?")
_NUMBER_RE = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?")
_QUOTED_RE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![A-Za-z])'([^']+)'(?![A-Za-z])")
_CLAUSE_SPLIT_RE = re.compile(r"\s*(?:[,;!?]|\.(?:\s|$)|\band\b|\bthen\b|\balso\b)\s*", re.I)


def _stem(word: str) -> str:
    """A tiny suffix stripper, applied the same way to message and tool words."""
    w = word.lower().replace("'", "")
    if len(w) > 4 and w.endswith("ies"):
        w = w[:-3] + "y"
    elif len(w) > 5 and w.endswith("ing"):
        w = w[:-3]
    elif len(w) > 4 and w.endswith("ed"):
        w = w[:-2]
    elif len(w) > 4 and w.endswith("es") and not w.endswith("ses"):
        w = w[:-2]
    elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w


_GROUPS_BY_STEM: dict[str, frozenset[str]] = {}
for _group, _words in _SYNONYM_GROUPS.items():
    for _w in _words:
        _s = _stem(_w)
        _GROUPS_BY_STEM[_s] = _GROUPS_BY_STEM.get(_s, frozenset()) | {f"<{_group}>"}
_WEAK_STEMS = frozenset(_stem(w) for w in _WEAK_WORDS)
_COLOUR_NAMES = frozenset(_BASIC_COLOURS)


def _keys(word: str) -> frozenset[str]:
    """The keys a word matches on: its stem and the synonym groups it belongs to."""
    stem = _stem(word)
    return frozenset({stem}) | _GROUPS_BY_STEM.get(stem, frozenset())


def _split_identifier(name: str) -> list[str]:
    """`change_background`, `change-background`, `changeBackground` → ["change", "background"]."""
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    spaced = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", spaced)
    return [p.lower() for p in re.split(r"[^A-Za-z0-9]+", spaced) if p]


def _content_words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD_RE.finditer(text)) if w not in _STOPWORDS]


# --------------------------------------------------------------------------------------------
# Tools and matching
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the matcher sees it: what AG-UI's `Tool` carries."""

    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, tool: Any) -> ToolSpec:
        """Accept a `ToolSpec`, a mapping (`{"name", "description", "parameters"}`), an AG-UI `Tool`,
        a pydantic-ai `ToolDefinition` or a LangChain-style `{"type": "function", "function": {...}}`."""
        if isinstance(tool, ToolSpec):
            return tool
        if isinstance(tool, Mapping):
            if "function" in tool and isinstance(tool["function"], Mapping):
                tool = tool["function"]
            params = tool.get("parameters") or tool.get("parameters_json_schema") or tool.get("input_schema")
            return cls(str(tool.get("name", "")), str(tool.get("description") or ""), dict(params or {}))
        params = getattr(tool, "parameters_json_schema", None)
        if params is None:
            params = getattr(tool, "parameters", None)
        return cls(str(tool.name), str(getattr(tool, "description", "") or ""), dict(params or {}))


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the demo model decided to make."""

    tool_name: str
    args: dict[str, Any]
    score: float


def _tool_keys(tool: ToolSpec) -> tuple[dict[str, bool], set[str]]:
    """Keys of the tool's name parts (key → weak?) and of its description words."""
    name_keys: dict[str, bool] = {}
    for part in _split_identifier(tool.name):
        if part in _STOPWORDS:
            continue
        weak = _stem(part) in _WEAK_STEMS
        for key in _keys(part):
            name_keys[key] = name_keys.get(key, True) and weak
    desc_keys: set[str] = set()
    for word in _content_words(tool.description):
        desc_keys |= _keys(word)
    return name_keys, desc_keys


def _word_weights(text: str, tool: ToolSpec) -> dict[str, float]:
    """Message word → what it is worth for this tool (3 strong name hit, 1 weak or description hit)."""
    name_keys, desc_keys = _tool_keys(tool)
    weights: dict[str, float] = {}
    for word in _content_words(text):
        keys = _keys(word)
        weight = 0.0
        hits = keys & name_keys.keys()
        if hits:
            strong = any(not name_keys[k] for k in hits) and _stem(word) not in _WEAK_STEMS
            weight = 3.0 if strong else 1.0
        elif keys & desc_keys:
            weight = 1.0
        if weight:
            weights[word] = max(weights.get(word, 0.0), weight)
    return weights


def score_tool(text: str, tool: Any) -> float:
    """How well `text` names `tool`: 3 per message word hitting a name part (1 for generic verbs
    like "change"/"set"), 1 per word hitting the description, +10 when the exact tool name appears,
    +1 when the message holds a number and the tool takes a required number."""
    spec = ToolSpec.of(tool)
    weights = _word_weights(text, spec)
    score = sum(weights.values())
    if spec.name and re.search(rf"(?<![\w]){re.escape(spec.name)}(?![\w])", text, re.I):
        score += 10.0
    if score and _NUMBER_RE.search(text) and _has_required_number(spec.parameters):
        score += 1.0
    return score


def _has_required_number(schema: Mapping[str, Any]) -> bool:
    props = schema.get("properties") or {}
    for name in schema.get("required") or ():
        prop = props.get(name) or {}
        types = prop.get("type")
        types = types if isinstance(types, list) else [types]
        if "integer" in types or "number" in types:
            return True
    return False


def _first_mention(text: str, spec: ToolSpec) -> int:
    """Index of the first message word that names `spec` (calls follow the order of the message)."""
    weights = _word_weights(text, spec)
    for index, word in enumerate(_content_words(text)):
        if word in weights:
            return index
    return len(text)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE_SPLIT_RE.split(text) if c and c.strip()]


def plan_tool_calls(text: str, tools: Iterable[Any], *, threshold: float = SCORE_THRESHOLD) -> list[PlannedCall]:
    """The calls the demo model makes for `text`, best match first.

    Tools are scored with `score_tool`; the best one is taken if it reaches `threshold`, then each
    next one only if the message words it matches *that no taken tool matched yet* reach the
    threshold too. So "make it blue and show a greeting" calls `change_background` and
    `show_greeting`, while "make it blue" calls only one of two colour tools. Arguments come
    from `build_arguments`, fed with the clause of the message that best names the tool when
    several tools are called.
    """
    specs = [ToolSpec.of(t) for t in tools]
    scored = [(score_tool(text, s), i, s) for i, s in enumerate(specs) if s.name]
    scored.sort(key=lambda item: (-item[0], item[1]))
    taken: list[tuple[float, ToolSpec]] = []
    covered: set[str] = set()
    for score, _, spec in scored:
        if score < threshold:
            break
        weights = _word_weights(text, spec)
        named = bool(re.search(rf"(?<![\w]){re.escape(spec.name)}(?![\w])", text, re.I))
        fresh = sum(w for word, w in weights.items() if word not in covered)
        if taken and not named and fresh < threshold:
            continue
        taken.append((score, spec))
        covered |= weights.keys()
    taken.sort(key=lambda item: _first_mention(text, item[1]))
    calls: list[PlannedCall] = []
    clauses = _clauses(text)
    for score, spec in taken:
        source = text
        if len(taken) > 1 and len(clauses) > 1:
            best = max(clauses, key=lambda c: score_tool(c, spec))
            if score_tool(best, spec) > 0:
                source = best
        calls.append(PlannedCall(spec.name, build_arguments(spec.parameters, source, tool=spec), score))
    return calls


# --------------------------------------------------------------------------------------------
# Arguments from a JSON Schema
# --------------------------------------------------------------------------------------------


class _ArgContext:
    def __init__(self, text: str, root: Mapping[str, Any], tool: ToolSpec | None):
        self.text = text
        self.root = root
        self.tool = tool
        numbers = [float(m.group(0)) for m in _NUMBER_RE.finditer(text)]
        for word in _WORD_RE.findall(text.lower()):
            if word in _NUMBER_WORDS:
                numbers.append(float(_NUMBER_WORDS[word]))
        self.numbers = numbers
        self.next_number = 0
        self.words = [w.lower() for w in _WORD_RE.findall(text)]
        self.negated = any(w in _NEGATIONS for w in self.words) or "n't" in text.lower()
        self.short_taken: str | None = None

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
    schema = dict(schema)
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
        return non_null[0] if non_null else (t[0] if t else None)
    if t is not None:
        return t
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
        return _pick_enum(schema["enum"], ctx)
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
    for prop in names:
        sub = props.get(prop)
        if sub is None:
            extra = schema.get("additionalProperties")
            sub = extra if isinstance(extra, Mapping) else {}
        result[prop] = _build(sub, ctx, name=prop, depth=depth + 1)
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
    out: list[Any] = []
    for i in range(min_items):
        value = _build(items, ctx, name=name, depth=depth + 1)
        if unique:
            value = _distinct(value, out, i)
        out.append(value)
    return out


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
    member_stems = [_stem(w) for w in _WORD_RE.findall(text)]
    message_stems = {_stem(w) for w in ctx.words}
    return bool(member_stems) and all(s in message_stems for s in member_stems)


def _pick_enum(members: list[Any], ctx: _ArgContext) -> Any:
    named = [m for m in members if _named_in(m, ctx)]
    if named:
        return max(named, key=lambda m: len(str(m)))
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


def _find_colour(text: str) -> str | None:
    match = _COLOUR_RE.search(text)
    if match:
        return match.group(0)
    words = [w.lower() for w in _WORD_RE.findall(text)]
    for i, word in enumerate(words):
        if i + 1 < len(words) and word in ("light", "dark", "hot", "deep", "sky", "royal") \
                and (word + words[i + 1]) in _COLOUR_NAMES:
            return word + words[i + 1]
        if word in _COLOUR_NAMES:
            return word
    return None


def _remainder(text: str, tool: ToolSpec | None) -> str:
    """The text left after stripping, at both ends, the stopwords and the words naming the tool."""
    if tool is not None:
        name_keys, desc_keys = _tool_keys(tool)
        tool_keys = set(name_keys) | desc_keys
    else:
        tool_keys = set()
    tokens = list(re.finditer(r"\S+", text))

    def droppable(token: str) -> bool:
        word = token.strip(".,;:!?\"'()[]").lower()
        if not word:
            return True
        if word in _STOPWORDS or word in _WEAK_WORDS or (tool is not None and word == tool.name.lower()):
            return True
        return bool(_keys(word) & tool_keys)

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
        if any(lowered == h or lowered.endswith("_" + h) for h in _SHORT_PARAM_HINTS) and rest:
            value = rest.split()[0].strip(".,;:!?\"'")
            ctx.short_taken = ctx.short_taken or value
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


# --------------------------------------------------------------------------------------------
# Texts
# --------------------------------------------------------------------------------------------


def describe_tool_results(results: Iterable[tuple[str, str, bool]]) -> str:
    """The answer after tool results: one line per `(tool_name, content, failed)`, quoting `content` verbatim.

    `change_background returned: "background is now blue"` / `save_note failed: "quota exceeded"`.
    """
    lines = []
    for tool_name, content, failed in results:
        verb = "failed" if failed else "returned"
        lines.append(f'{tool_name} {verb}: "{content}"')
    return "\n".join(lines) if lines else "Done."


def no_tool_answer(text: str, tool_names: Sequence[str]) -> str:
    """The answer when no advertised tool matches `text` (or there is none)."""
    if tool_names:
        return f"I have no tool for that. Available tools: {', '.join(tool_names)}."
    if not text.strip():
        return "Hello! I am the pyclient demo model. Send me a message."
    return f'You said: "{text}". I have no tools to call.'


def wants_slow(text: str) -> bool:
    """True when the user message asks for a slow stream (it contains the word "slowly")."""
    return bool(re.search(r"\bslowly\b", text, re.I))


def wants_interleaving(text: str) -> bool:
    """True when parallel calls' argument chunks should alternate (the word "interleaved")."""
    return bool(re.search(r"\binterleaved?\b", text, re.I))


def chunk_text(text: str, pieces: int) -> list[str]:
    """`text` cut into `pieces` contiguous parts of near-equal length (fewer if it is shorter)."""
    if not text:
        return [""]
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out, pos = [], 0
    for i in range(pieces):
        step = size + (1 if i < extra else 0)
        out.append(text[pos: pos + step])
        pos += step
    return out


def _text_deltas(text: str, slow: bool) -> list[str]:
    if slow:
        return chunk_text(text, SLOW_TEXT_DELTAS)
    words = re.findall(r"\S+\s*|\s+", text)
    return words or [text]


def _args_chunks(args_json: str) -> list[str]:
    return chunk_text(args_json, 3 if len(args_json) >= 3 else len(args_json) or 1)


# --------------------------------------------------------------------------------------------
# The demo model
# --------------------------------------------------------------------------------------------

_RAW_TOOL_CONTENT: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "pyclient_raw_tool_content", default={}
)
"""tool_call_id → the content string the client sent, so answers quote it byte for byte
(pydantic-ai parses JSON-looking tool content into objects)."""


def _user_text(part: UserPromptPart) -> str:
    content = part.content
    if isinstance(content, str):
        return content
    return " ".join(c if isinstance(c, str) else getattr(c, "content", "") or "" for c in content
                    if isinstance(c, str) or isinstance(getattr(c, "content", None), str))


def _latest_user_text(messages: Sequence[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    return _user_text(part)
    return ""


def _result_content(part: ToolReturnPart) -> str:
    raw = _RAW_TOOL_CONTENT.get().get(part.tool_call_id)
    if raw is not None:
        return raw
    if isinstance(part.content, str):
        return part.content
    try:
        return json.dumps(part.content, ensure_ascii=False)
    except (TypeError, ValueError):
        return part.model_response_str()


async def demo_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """The demo model's `FunctionModel` stream function (see the module docstring for its behaviour)."""
    last = messages[-1] if messages else None
    text = _latest_user_text(messages)
    slow = wants_slow(text)
    tools = [*info.function_tools]

    last_parts = last.parts if isinstance(last, ModelRequest) else []
    has_new_prompt = any(isinstance(p, UserPromptPart) for p in last_parts)
    returns = [p for p in last_parts if isinstance(p, ToolReturnPart)]
    other_results = [p for p in last_parts if getattr(p, "tool_name", None) and not isinstance(p, ToolReturnPart)]

    if not has_new_prompt and (returns or other_results):
        results = [
            (p.tool_name, _result_content(p), p.outcome in ("failed", "denied", "retried")) for p in returns
        ]
        for p in other_results:  # retry prompts and the like: quote what the model was told
            results.append((str(getattr(p, "tool_name", "tool")), str(getattr(p, "content", "")), True))
        async for delta in _stream_text(describe_tool_results(results), slow):
            yield delta
        return

    calls = plan_tool_calls(text, tools) if tools else []
    if not calls:
        async for delta in _stream_text(no_tool_answer(text, [t.name for t in tools]), slow):
            yield delta
        return

    ids = [f"call_{uuid.uuid4().hex[:16]}" for _ in calls]
    chunks = [_args_chunks(json.dumps(c.args, ensure_ascii=False)) for c in calls]
    if wants_interleaving(text) and len(calls) > 1:
        # Each call starts (name and id alone) before its first chunk, then the remaining
        # chunks alternate between the calls.
        for i, call in enumerate(calls):
            yield {i: DeltaToolCall(name=call.tool_name, tool_call_id=ids[i])}
            yield {i: DeltaToolCall(json_args=chunks[i][0])}
            if slow:
                await asyncio.sleep(SLOW_PAUSE_S)
        rounds = max(len(c) for c in chunks)
        for r in range(1, rounds):
            for i in range(len(calls)):
                if r < len(chunks[i]):
                    yield {i: DeltaToolCall(json_args=chunks[i][r])}
                    if slow:
                        await asyncio.sleep(SLOW_PAUSE_S)
        return
    for i, call in enumerate(calls):
        # Name and id first, arguments in later chunks (some servers drop arguments that share
        # a chunk with the name).
        yield {i: DeltaToolCall(name=call.tool_name, tool_call_id=ids[i])}
        for chunk in chunks[i]:
            if slow:
                await asyncio.sleep(SLOW_PAUSE_S)
            yield {i: DeltaToolCall(json_args=chunk)}


async def _stream_text(text: str, slow: bool) -> AsyncIterator[str]:
    for i, delta in enumerate(_text_deltas(text, slow)):
        if slow and i:
            await asyncio.sleep(SLOW_PAUSE_S)
        yield delta


def build_agent(model: str | None = None) -> Agent[None, str]:
    """The dev server's agent: the demo model when `model` is None, else a pydantic-ai model string
    such as "openai:gpt-4o" (its provider's key must be in the environment)."""
    if model is None:
        return Agent(
            FunctionModel(stream_function=demo_stream, model_name=DEMO_MODEL_NAME),
            name="pyclient-demo",
        )
    return Agent(model, instructions=_INSTRUCTIONS, name="pyclient-agent")


# --------------------------------------------------------------------------------------------
# The endpoint
# --------------------------------------------------------------------------------------------


def _error(status: int, detail: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"detail": detail, **extra}, status_code=status)


def agent_endpoint(
    model: str | None = None, *, max_body_bytes: int = 1_000_000
) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint `(request) -> Response` running `build_agent(model)` over AG-UI (SSE).

    Before the run it answers: 413 to a body over `max_body_bytes` (by Content-Length, and by the
    bytes actually received); 415 without `Content-Type: application/json`; 422 to invalid JSON,
    a body that is not a `RunAgentInput`, or a tool message whose `toolCallId` no assistant
    message of the history issued (pydantic-ai itself would answer 500 there).
    """
    agent = build_agent(model)
    too_large = f"Request body exceeds the limit of {max_body_bytes} bytes."

    async def endpoint(request: Request) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None:
            try:
                declared_size = int(declared)
            except ValueError:
                return _error(400, "Invalid Content-Length header.")
            if declared_size > max_body_bytes:
                return _error(413, too_large, limit=max_body_bytes)
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return _error(415, f"Expected `Content-Type: application/json`, got {media_type or 'no content type'}.")

        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body_bytes:
                return _error(413, too_large, limit=max_body_bytes)
            chunks.append(chunk)
        body = b"".join(chunks)

        try:
            with warnings.catch_warnings():  # pydantic-ai parses again and warns itself
                warnings.simplefilter("ignore")
                run_input = AGUIAdapter.build_run_input(body)
        except ValidationError as e:
            return _error(422, "Malformed AG-UI RunAgentInput body.", errors=json.loads(e.json(include_input=False)))
        issued: set[str] = set()
        raw_contents: dict[str, str] = {}
        for message in run_input.messages:
            if message.role == "assistant":
                issued.update(tc.id for tc in (getattr(message, "tool_calls", None) or []))
            elif message.role == "tool":
                if message.tool_call_id not in issued:
                    return _error(
                        422,
                        f"Tool message for unknown toolCallId {message.tool_call_id!r}: "
                        "no earlier assistant message carries that tool call.",
                    )
                if isinstance(message.content, str):
                    raw_contents[message.tool_call_id] = message.content
        try:
            AGUIAdapter.load_messages(run_input.messages)
        except ValueError as e:  # includes pydantic's ValidationError
            return _error(422, f"Unsupported AG-UI messages: {e}")

        sent = False

        async def replay() -> Mapping[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await request.receive()

        _RAW_TOOL_CONTENT.set(raw_contents)
        return await AGUIAdapter.dispatch_request(Request(request.scope, replay), agent=agent)

    return endpoint


def _main(argv: Sequence[str] | None = None) -> None:
    import argparse

    import uvicorn
    from starlette.applications import Starlette
    from starlette.routing import Route

    parser = argparse.ArgumentParser(description="Serve the pyclient dev agent at /agent.")
    parser.add_argument("--model", default=None, help="PROVIDER:NAME pydantic-ai model (default: the demo model)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args(argv)
    app = Starlette(routes=[Route("/agent", agent_endpoint(args.model), methods=["POST"])])
    uvicorn.run(app, host=args.host, port=args.port)


if __name__ == "__main__":
    _main()
