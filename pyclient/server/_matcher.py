"""Decides which of the advertised tools the demo model calls for a user message, and with which arguments.

`score_tool` rates how well a message names a tool: 3 per message word hitting a part of its
name, 1 per generic verb ("change", "set") or description word, +10 for the exact tool name.
The best tool reaching `SCORE_THRESHOLD` is called, then each other one whose message words not
matched by a taken tool reach the threshold too, so one message can make parallel calls. The
arguments come from `pyclient.server._arguments.build_arguments`.

```python
from pyclient.server._matcher import plan_tool_calls

def tool(name, param):
    schema = {"type": "object", "properties": {param: {"type": "string"}}, "required": [param]}
    return {"name": name, "parameters": schema}

calls = plan_tool_calls("make it blue and show a greeting", [tool("change_background", "background"),
                                                              tool("show_greeting", "name")])
assert [c.tool_name for c in calls] == ["change_background", "show_greeting"]
assert calls[0].args == {"background": "blue"}
```
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._arguments import build_arguments
from ._toolspec import ToolSpec, tool_keys
from ._words import (
    NUMBER_RE,
    WEAK_STEMS,
    WORD_RE,
    content_words,
    is_colour_word,
    mask_colour_values,
    stem,
    word_keys,
)

__all__ = ["SCORE_THRESHOLD", "PlannedCall", "plan_tool_calls", "score_tool"]

SCORE_THRESHOLD = 2.0
"""A tool is called only when the message words it matches are worth at least this much."""

_CLAUSE_SPLIT_RE = re.compile(r"\s*(?:[,;!?]|\.(?:\s|$)|\band\b|\bthen\b|\balso\b)\s*", re.I)


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the demo model decided to make."""

    tool_name: str
    args: dict[str, Any]
    score: float


def _word_weights(text: str, tool: ToolSpec) -> dict[str, float]:
    """Message word → what it is worth for this tool (3 strong name hit, 1 weak or description hit)."""
    name_keys, desc_keys = tool_keys(tool)
    weights: dict[str, float] = {}
    for word in content_words(text):
        keys = word_keys(word)
        weight = 0.0
        hits = keys & name_keys.keys()
        if hits:
            strong = any(not name_keys[k] for k in hits) and stem(word) not in WEAK_STEMS
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
    if spec.name and _names(text, spec):
        score += 10.0
    if score and NUMBER_RE.search(mask_colour_values(text)) and _has_required_number(spec.parameters):
        score += 1.0
    return score


def _names(text: str, spec: ToolSpec) -> bool:
    """True when `text` spells the tool's exact name as a word of its own (any case)."""
    return re.search(rf"(?<![\w]){re.escape(spec.name)}(?![\w])", text, re.I) is not None


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
    for index, word in enumerate(content_words(text)):
        if word in weights:
            return index
    return len(text)


def _clauses(text: str) -> list[str]:
    """The message cut at commas, "and", "then"…, but never inside parentheses
    ("linear-gradient(red, blue)") nor between two colours ("a red and blue gradient")."""
    clauses: list[str] = []
    start = 0
    for match in _CLAUSE_SPLIT_RE.finditer(text):
        if text.count("(", 0, match.start()) > text.count(")", 0, match.start()):
            continue
        before = WORD_RE.findall(text[start:match.start()])
        after = WORD_RE.findall(text[match.end():])
        if before and after and is_colour_word(before[-1]) and is_colour_word(after[0]):
            continue
        clauses.append(text[start:match.start()])
        start = match.end()
    clauses.append(text[start:])
    return [c for c in clauses if c.strip()]


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
        named = _names(text, spec)
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
