"""Decides which of the advertised tools the demo model calls for a user message, and with which arguments.

`score_tool` rates how well a message names a tool: `NAME_HIT` per message word that is a
part of its name, `SYNONYM_HIT` per word of the same synonym group as a part ("erase" for
`clear_notes`), `WEAK_HIT` per generic verb ("change", "set") or description word, +10 for the
exact tool name; a clause that starts with the tool's verb (the first part of its name: "add
eggs" for `add_item`) gets `VERB_HIT` for it. The best tool reaching `SCORE_THRESHOLD` is
called, then each other one whose message words not matched by a taken tool (its verb aside)
reach the threshold too, so one message can make parallel calls. The arguments come from
`pyclient.server._arguments.build_arguments`. The rules, with examples, are in
docs/getting-started.md (`pyclient.server._phrases` holds the examples the tests run).

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
    split_identifier,
    stem,
    word_keys,
)

__all__ = ["NAME_HIT", "SCORE_THRESHOLD", "SYNONYM_HIT", "VERB_HIT", "WEAK_HIT", "PlannedCall", "plan_tool_calls",
           "score_tool"]

SCORE_THRESHOLD = 2.0
"""A tool is called only when the message words it matches are worth at least this much."""
NAME_HIT = 3.0
"""What a message word is worth that is a part of the tool's name (split at `_` and capitals, stemmed)."""
SYNONYM_HIT = 2.0
"""What a message word is worth that shares a synonym group with a part of the name: enough
alone, but a tool the word names itself wins."""
WEAK_HIT = 1.0
"""What a generic verb ("change", "set", "add", `WEAK_WORDS`) or a word of the description is worth."""
VERB_HIT = 2.5
"""What the first word of a clause is worth when it is the tool's verb (the first part of its
name): enough alone ("add eggs"), more than a word of the name that another tool holds ("add
milk to the list" adds, though `clear_list` names the list), less than the name's object
("change the heading" sets the heading, not the background)."""

_CLAUSE_SPLIT_RE = re.compile(r"\s*(?:[,;!?]|\.(?:\s|$)|\band\b|\bthen\b|\balso\b)\s*", re.I)


@dataclass(frozen=True)
class PlannedCall:
    """One tool call the demo model decided to make."""

    tool_name: str
    args: dict[str, Any]
    score: float


def _word_weights(text: str, tool: ToolSpec) -> dict[str, float]:
    """Message word → what it is worth for this tool (see the module docstring)."""
    name_keys, desc_keys = tool_keys(tool)
    parts = split_identifier(tool.name)
    verb = stem(parts[0]) if parts else None
    verbs = _verbs(text)
    weights: dict[str, float] = {}
    for word in content_words(text):
        keys = word_keys(word)
        weight = 0.0
        hits = keys & name_keys.keys()
        if hits:
            if not any(not name_keys[k] for k in hits) or stem(word) in WEAK_STEMS:
                weight = WEAK_HIT
            else:
                weight = NAME_HIT if stem(word) in hits else SYNONYM_HIT
        elif keys & desc_keys:
            weight = WEAK_HIT
        if word in verbs and stem(word) == verb and _verb_fits(verbs[word], name_keys.keys() | desc_keys):
            weight = max(weight, VERB_HIT)
        if weight:
            weights[word] = max(weights.get(word, 0.0), weight)
    return weights


def _verb_fits(clause: str, keys: set[str]) -> bool:
    """Whether the rest of `clause` names nothing the tool does not know of: a word of a
    synonym group its name and description miss ("change the title" for `change_background`)
    is another tool's job, an unknown word ("add eggs") the verb's argument."""
    for word in content_words(clause)[1:]:
        groups = {key for key in word_keys(word) if key.startswith("<")}
        if groups and not groups & keys:
            return False
    return True


def _verbs(text: str) -> dict[str, str]:
    """The first word of each clause of `text` (where a person puts the verb: "add eggs, then
    ..."), with its clause."""
    return {words[0]: clause for clause in _clauses(text) if (words := content_words(clause))}


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
    verbs = _verbs(text)
    scored = [(score_tool(text, s), i, s) for i, s in enumerate(specs) if s.name]
    scored.sort(key=lambda item: (-item[0], item[1]))
    taken: list[tuple[float, ToolSpec]] = []
    covered: set[str] = set()
    for score, _, spec in scored:
        if score < threshold:
            break
        weights = _word_weights(text, spec)
        named = _names(text, spec)
        # Its verb makes a second call only in a clause no taken tool matched: "change the
        # heading" names one tool, "add eggs, then set the heading to Shopping" two.
        fresh = sum(w for word, w in weights.items()
                    if word not in covered and (w != VERB_HIT or not set(content_words(verbs[word])) & covered))
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
