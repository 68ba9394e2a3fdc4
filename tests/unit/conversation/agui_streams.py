"""Hypothesis strategies for AG-UI SSE byte streams: valid runs, mutated runs, random chunking.

`streams()` draws a `Stream`: the events of one run's response (text, reasoning, tool calls
sequential, parallel and chunked, state snapshots and deltas, messages snapshots, server-side
tool results, `RUN_FINISHED` with and without `outcome.pendingToolCallIds`, `RUN_ERROR`), then
mutations (a dropped event, an event moved or duplicated, reused ids, unknown types, wrong
field types, huge and deep values, surrogates, garbage and invalid UTF-8, truncation), then the
bytes of the body with `\\n`, `\\r\\n` or `\\r` line ends, cut into random chunks (inside UTF-8
characters and inside `\\r\\n` included).

The client tools the streams call: `echo(text: str)`, `add(a: int, b: int)` (advertised),
`secret(...)` (registered but never advertised) and `nowhere` (not registered at all).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings
from hypothesis import strategies as st


def budget(ci: int) -> settings:
    """`ci` examples under the "ci" profile (tests/conftest.py); the loaded profile's count otherwise.

    The ci profile sizes the property tests together to about a minute on two cores: a slow
    property gets fewer examples there, while "deep" still runs 10,000 of each.
    """
    return settings(max_examples=ci) if settings.get_current_profile_name() == "ci" else settings()


ADVERTISED = ("echo", "add")
TOOL_NAMES = ("echo", "add", "secret", "nowhere")

# Text with everything a server might put in a string: any code point, lone surrogates included.
_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
TEXT = st.text(alphabet=st.one_of(st.characters(), _SURROGATES, st.sampled_from("\r\n\"\\{}[]:,é€😀")),
               max_size=12)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20),
                         st.floats(allow_nan=False, allow_infinity=False), TEXT)
JSON_VALUES = st.recursive(JSON_SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=3), st.dictionaries(TEXT, children, max_size=3)), max_leaves=8)


@dataclass(frozen=True)
class Raw:
    """An SSE payload written by hand (not a JSON dump of a dict): huge numbers, deep nesting, garbage."""

    text: str


@dataclass
class Stream:
    """One drawn response: its events, the bytes of the body and the chunks they are cut into."""

    events: list[Any]
    body: bytes
    chunks: list[bytes] = field(repr=False)
    notes: list[str] = field(default_factory=list)
    hold_open: bool = False
    """The server keeps the connection open after the last chunk (it never closes it)."""


class _Ids:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}{self.n}"


def _split(draw: st.DrawFn, text: str, max_parts: int = 4) -> list[str]:
    if not text:
        return [text]
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=max_parts - 1))))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _arguments(draw: st.DrawFn, name: str) -> str:
    kind = draw(st.sampled_from(["valid", "valid", "valid", "empty", "wrong", "broken"]))
    if kind == "empty":
        return ""
    if kind == "broken":
        return draw(st.sampled_from(['{"text": ', "{", "nul", '{"a": 1,}', "[]"]))
    if kind == "wrong":
        return json.dumps(draw(st.dictionaries(st.sampled_from(["text", "a", "b", "x"]), JSON_SCALARS, max_size=3)))
    if name == "add":
        return json.dumps({"a": draw(st.integers(-1000, 1000)), "b": draw(st.integers(-1000, 1000))})
    return json.dumps({"text": draw(TEXT)}, ensure_ascii=draw(st.booleans()))


def _text(draw: st.DrawFn, ids: _Ids, reasoning: bool = False) -> list[dict[str, Any]]:
    message_id = ids("r" if reasoning else "m")
    deltas = [d for d in _split(draw, draw(TEXT)) if d] or ["x"]
    if draw(st.booleans()):  # the *_CHUNK form
        kind = "REASONING_MESSAGE_CHUNK" if reasoning else "TEXT_MESSAGE_CHUNK"
        return [{"type": kind, "messageId": message_id, "delta": deltas[0]},
                *({"type": kind, "delta": d} for d in deltas[1:])]
    if reasoning:
        return [{"type": "REASONING_START", "messageId": message_id},
                {"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"},
                *({"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
                {"type": "REASONING_MESSAGE_END", "messageId": message_id},
                {"type": "REASONING_END", "messageId": message_id}]
    return [{"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
            *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
            {"type": "TEXT_MESSAGE_END", "messageId": message_id}]


def _call(draw: st.DrawFn, ids: _Ids, parent: str | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                                    list[dict[str, Any]], str]:
    call_id = ids("c")
    name = draw(st.sampled_from(TOOL_NAMES))
    start: dict[str, Any] = {"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name}
    if parent is not None:
        start["parentMessageId"] = parent
    args = [{"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": d}
            for d in _split(draw, _arguments(draw, name)) if d]
    return [start], args, [{"type": "TOOL_CALL_END", "toolCallId": call_id}], call_id


def _calls(draw: st.DrawFn, ids: _Ids, calls: list[str]) -> list[dict[str, Any]]:
    parent = ids("m") if draw(st.booleans()) else None
    events: list[dict[str, Any]] = []
    if parent is not None:
        events.append({"type": "TEXT_MESSAGE_START", "messageId": parent, "role": "assistant"})
        events.append({"type": "TEXT_MESSAGE_END", "messageId": parent})
    style = draw(st.sampled_from(["sequential", "parallel", "pydantic", "chunked"]))
    count = draw(st.integers(1, 3))
    parts = [_call(draw, ids, parent) for _ in range(count)]
    calls.extend(p[3] for p in parts)
    if style == "sequential":
        for start, args, end, _ in parts:
            events += start + args + end
    elif style == "pydantic":  # every START and END first, then the arguments
        for start, _, end, _ in parts:
            events += start + end
        for _, args, _, _ in parts:
            events += args
    elif style == "parallel":  # interleaved, each call's own events in order
        queues = [start + args + end for start, args, end, _ in parts]
        while any(queues):
            i = draw(st.sampled_from([i for i, q in enumerate(queues) if q]))
            events.append(queues[i].pop(0))
    else:
        for start, args, _, call_id in parts:
            deltas = [a["delta"] for a in args] or [""]
            first = {"type": "TOOL_CALL_CHUNK", "toolCallId": call_id, "toolCallName": start[0]["toolCallName"],
                     "delta": deltas[0]}
            if parent is not None:
                first["parentMessageId"] = parent
            events.append(first)
            events += [{"type": "TOOL_CALL_CHUNK", "delta": d} for d in deltas[1:]]
    return events


def _state(draw: st.DrawFn) -> list[dict[str, Any]]:
    if draw(st.booleans()):
        return [{"type": "STATE_SNAPSHOT", "snapshot": draw(JSON_VALUES)}]
    ops = []
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["add", "replace", "remove", "test", "move"]))
        path = draw(st.sampled_from(["/a", "/b", "/a/0", "/-", "", "/a/b"]))
        item: dict[str, Any] = {"op": op, "path": path}
        if op in ("add", "replace", "test"):
            item["value"] = draw(JSON_VALUES)
        if op == "move":
            item["from"] = draw(st.sampled_from(["/a", "/b"]))
        ops.append(item)
    return [{"type": "STATE_DELTA", "delta": ops}]


def _snapshot(draw: st.DrawFn, ids: _Ids, calls: list[str]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"id": ids("u"), "role": "user", "content": draw(TEXT)}]
    answered = draw(st.booleans())
    if calls and draw(st.booleans()):
        # The server's view of the calls so far: some with arguments, some with empty ones.
        tool_calls = [{"id": c, "type": "function",
                       "function": {"name": draw(st.sampled_from(TOOL_NAMES)),
                                    "arguments": draw(st.sampled_from(["", "{}", '{"text": "x"}']))}}
                      for c in calls]
        messages.append({"id": ids("m"), "role": "assistant", "toolCalls": tool_calls})
        if answered:
            messages.append({"id": ids("t"), "role": "tool", "toolCallId": calls[0], "content": draw(TEXT)})
    return [{"type": "MESSAGES_SNAPSHOT", "messages": messages}]


def _finish(draw: st.DrawFn, calls: list[str]) -> list[dict[str, Any]]:
    kind = draw(st.sampled_from(["plain", "plain", "pending", "pending_empty", "pending_bad", "error", "none",
                                 "interrupt", "cancelled"]))
    base = {"type": "RUN_FINISHED", "threadId": "THREAD", "runId": "RUN"}
    if kind == "plain":
        return [base]
    if kind == "interrupt":  # some naming a call of the run (a server tool's approval), some not
        interrupts = [{"id": f"int-{i}", "reason": draw(st.sampled_from(["tool_call", "input_required"])),
                       **({"toolCallId": draw(st.sampled_from([*calls, "ghost"]))} if draw(st.booleans()) else {})}
                      for i in range(draw(st.integers(1, 3)))]
        return [{**base, "outcome": {"type": "interrupt", "interrupts": interrupts}}]
    if kind == "cancelled":
        return [{**base, "outcome": {"type": "cancelled"}}]
    if kind == "pending":
        ids = draw(st.lists(st.sampled_from([*calls, "ghost"]), max_size=4))
        return [{**base, "outcome": {"type": "success", "pendingToolCallIds": ids}}]
    if kind == "pending_empty":
        return [{**base, "outcome": {"type": "success", "pendingToolCallIds": []}}]
    if kind == "pending_bad":
        return [{**base, "outcome": draw(st.one_of(JSON_VALUES, st.fixed_dictionaries(
            {"type": st.just("success"), "pendingToolCallIds": JSON_VALUES})))}]
    if kind == "error":
        return [{"type": "RUN_ERROR", "message": draw(TEXT), **({"code": draw(TEXT)} if draw(st.booleans()) else {})}]
    return []


@st.composite
def events(draw: st.DrawFn) -> list[Any]:
    """A valid run (RUN_STARTED .. RUN_FINISHED/RUN_ERROR, or cut short) with some mutations."""
    ids = _Ids()
    calls: list[str] = []
    out: list[Any] = [{"type": "RUN_STARTED", "threadId": "THREAD", "runId": "RUN"}]
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["text", "reasoning", "calls", "calls", "calls", "state", "snapshot", "result",
                                     "custom"]))
        if kind == "text":
            out += _text(draw, ids)
        elif kind == "reasoning":
            out += _text(draw, ids, reasoning=True)
        elif kind == "calls":
            out += _calls(draw, ids, calls)
        elif kind == "state":
            out += _state(draw)
        elif kind == "snapshot":
            out += _snapshot(draw, ids, calls)
        elif kind == "result" and calls:  # a server-side tool's result
            out.append({"type": "TOOL_CALL_RESULT", "messageId": ids("t"), "toolCallId": draw(st.sampled_from(calls)),
                        "content": draw(TEXT)})
        elif kind == "custom":
            out.append({"type": "CUSTOM", "name": draw(TEXT), "value": draw(JSON_VALUES)})
    out += _finish(draw, calls)
    for _ in range(draw(st.integers(0, 3))):
        out = _mutate(draw, out, calls)
    return out


_MUTATIONS = ["drop", "move", "duplicate", "reuse", "unknown", "wrong_type", "huge", "deep", "big_int", "garbage",
              "after_finish"]


def _mutate(draw: st.DrawFn, out: list[Any], calls: list[str]) -> list[Any]:
    out = list(out)
    mutation = draw(st.sampled_from(_MUTATIONS))
    index = draw(st.integers(0, max(len(out) - 1, 0)))
    dicts = [i for i, e in enumerate(out) if isinstance(e, dict)]
    if mutation == "drop" and out:
        del out[index]
    elif mutation == "move" and out:  # e.g. ARGS after END, END before START, content before start
        out.insert(draw(st.integers(0, len(out) - 1)), out.pop(index))
    elif mutation == "duplicate" and out:
        out.insert(draw(st.integers(0, len(out))), out[index])
    elif mutation == "reuse" and dicts:
        pool = [*calls, "c1", "m1"]
        i = draw(st.sampled_from(dicts))
        event = dict(out[i])
        for key in ("toolCallId", "messageId", "parentMessageId"):
            if key in event:
                event[key] = draw(st.sampled_from(pool))
        out[i] = event
    elif mutation == "unknown":
        out.insert(index, {"type": draw(st.one_of(TEXT, st.sampled_from(["FUTURE_EVENT", "run_finished", ""]))),
                           "x": draw(JSON_VALUES)})
    elif mutation == "wrong_type" and dicts:
        i = draw(st.sampled_from(dicts))
        event = dict(out[i])
        key = draw(st.sampled_from(sorted(event)))
        event[key] = draw(JSON_VALUES)
        out[i] = event
    elif mutation == "huge" and dicts:
        i = draw(st.sampled_from(dicts))
        event = dict(out[i])
        strings = sorted(k for k, v in event.items() if isinstance(v, str) and k != "type")
        if strings:
            event[draw(st.sampled_from(strings))] = draw(st.sampled_from(["é", "x", "\ud83d"])) * draw(
                st.sampled_from([1000, 100_000]))
        out[i] = event
    elif mutation == "deep":
        depth = draw(st.sampled_from([50, 900, 3_000, 10_000]))
        where = draw(st.sampled_from(["snapshot", "args", "delta"]))
        value = "[" * depth + "]" * depth
        if where == "snapshot":
            raw = '{"type": "STATE_SNAPSHOT", "snapshot": ' + value + "}"
        elif where == "args":
            raw = '{"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": ' + json.dumps(value) + "}"
        else:
            raw = '{"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/a", "value": ' + value + "}]}"
        out.insert(index, Raw(raw))
    elif mutation == "big_int":
        digits = "9" * draw(st.sampled_from([20, 400, 5_000]))
        where = draw(st.sampled_from(["snapshot", "timestamp", "delta"]))
        if where == "snapshot":
            raw = '{"type": "STATE_SNAPSHOT", "snapshot": {"n": ' + digits + "}}"
        elif where == "timestamp":
            raw = '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "x", "timestamp": ' + digits + "}"
        else:
            raw = '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": ' + digits + "}"
        out.insert(index, Raw(raw))
    elif mutation == "garbage":
        out.insert(index, Raw(draw(st.one_of(TEXT, st.sampled_from(["not json", "{", "[1]", '"x"', "null",
                                                                     '{"type": 3}', "{}"])))))
    elif mutation == "after_finish":  # events after the terminal event: the connection held open
        out.append(draw(st.sampled_from([
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "late"},
            {"type": "TOOL_CALL_START", "toolCallId": "late", "toolCallName": "echo"},
            {"type": "RUN_FINISHED", "threadId": "THREAD", "runId": "RUN"},
            {"type": "RUN_ERROR", "message": "late"},
        ])))
    return out


def _sometimes(draw: st.DrawFn) -> bool:
    """True about one time in ten (not at Hypothesis' favourite boundary values)."""
    return draw(st.sampled_from(range(10))) == 5


def payload(draw: st.DrawFn, event: Any) -> str:
    if isinstance(event, Raw):
        return event.text
    return json.dumps(event, ensure_ascii=draw(st.booleans()))


@st.composite
def bodies(draw: st.DrawFn, event_list: list[Any]) -> tuple[bytes, list[str]]:
    """The SSE body of `event_list`: line ends, keep-alives, BOM, garbage bytes, truncation."""
    notes = []
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    parts: list[bytes] = []
    if draw(st.booleans()):
        parts.append("\ufeff".encode())
    for event in event_list:
        text = payload(draw, event)
        if "\n" in text or "\r" in text:  # a raw newline inside would end the data line
            text = text.replace("\r", " ").replace("\n", " ")
        if _sometimes(draw):
            parts.append(f": keep-alive{newline}".encode())
        parts.append(f"data: {text}{newline}{newline}".encode("utf-8", "surrogatepass"))
    body = b"".join(parts)
    if _sometimes(draw):
        at = draw(st.integers(0, len(body)))
        body = body[:at] + draw(st.binary(min_size=1, max_size=8)) + body[at:]
        notes.append("garbage bytes")
    if _sometimes(draw):
        body = body[:len(body) * draw(st.integers(1, 99)) // 100]
        notes.append("truncated")
    return body, notes


@st.composite
def chunked(draw: st.DrawFn, body: bytes) -> list[bytes]:
    """`body` cut at random offsets (inside UTF-8 characters and `\\r\\n` included)."""
    if not body:
        return [body]
    cuts = sorted(set(draw(st.lists(st.integers(1, max(len(body) - 1, 1)), max_size=12))))
    # Often also cut right after every "\r" and inside multi-byte characters.
    if draw(st.booleans()):
        cuts = sorted(set(cuts) | {i + 1 for i, b in enumerate(body[:-1]) if b in (0x0D, 0xC3, 0xE2, 0xF0)})
    bounds = [0, *[c for c in cuts if 0 < c < len(body)], len(body)]
    return [body[a:b] for a, b in zip(bounds, bounds[1:])]


@st.composite
def streams(draw: st.DrawFn) -> Stream:
    event_list = draw(events())
    body, notes = draw(bodies(event_list))
    return Stream(event_list, body, draw(chunked(body)), notes, hold_open=_sometimes(draw))
