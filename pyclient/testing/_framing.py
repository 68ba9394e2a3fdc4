"""What a scripted turn streams besides text and tool calls: reasoning, steps, custom events, subagents.

`Turn.reason()`, `Turn.step()`, `Turn.custom()`, `Turn.subagent()` and `Turn.end_subagent()`
add one of these steps to the turn; each writes its events when the turn answers (fresh ids
each time), through a `Framing` that knows what is open. A step (`STEP_STARTED`) wraps what
follows it until the next step or the end of the turn's events; a subagent wraps what follows
it until `end_subagent()` or the end, every event in between that can carry its
`subagentRunId` carries it, and its texts and calls are messages of its own; a held run
(`Turn.hold()`) leaves both open. Reasoning streams as AG-UI 1.0 does (pydantic-ai's
`AGUIAdapter`), its encrypted value last, or with `legacy=True` as servers before 1.0 did.
The events each writes: docs/testing.md ("Reasoning, steps, custom events, subagents").

```python
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("plan").reason("First, the venue", encrypted="opaque").step("search").subagent(
    "researcher").say("Found 3").end_subagent().custom("progress", {"done": 1}).say("Booked")
request = {"threadId": "t", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "plan"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
events = agent.respond(request).events
print([event.type.value for event in events][1:9])
# ['REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END', 'REASONING_ENCRYPTED_VALUE', 'REASONING_END', 'STEP_STARTED', 'SUBAGENT_STARTED']
said = [event for event in events if event.type.value == "TEXT_MESSAGE_CONTENT"]
print([(event.delta, event.subagent_run_id is not None) for event in said])   # [('Found 3', True), ('Booked', False)]
print(events[-2].type.value)   # STEP_FINISHED
```
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    ReasoningEncryptedValueEvent,
    ReasoningEndEvent,
    ReasoningMessageContentEvent,
    ReasoningMessageEndEvent,
    ReasoningMessageStartEvent,
    ReasoningStartEvent,
    StepFinishedEvent,
    StepStartedEvent,
    SubagentErrorEvent,
    SubagentFinishedEvent,
    SubagentStartedEvent,
)

from ._response import Event

__all__ = ["Custom", "EndSubagent", "Framed", "Framing", "Reason", "Step", "StartSubagent"]


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def _cut(text: str, pieces: int) -> list[str]:
    if pieces <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // pieces)
    return [text[i:i + size] for i in range(0, len(text), size)]


@dataclass
class Framing:
    """What is open while one response is written: a step, a subagent (and where its events start)."""

    step: str | None = None
    subagent: str | None = None          # the open subagent's run id
    subagent_start: int = 0              # where its events start in the response
    ranges: list[tuple[int, int, str]] = field(default_factory=list)   # (start, end, run id)
    fresh_message: bool = False          # the next text or call starts a new assistant message

    def close_step(self) -> list[Event]:
        if self.step is None:
            return []
        name, self.step = self.step, None
        return [StepFinishedEvent(step_name=name)]

    def close_subagent(self, at: int, end: Event) -> list[Event]:
        assert self.subagent is not None
        self.ranges.append((self.subagent_start, at, self.subagent))
        self.subagent = None
        self.fresh_message = True
        return [end]

    def close(self, at: int, *, finish: bool = True) -> list[Event]:
        """What the end of the turn's events closes: the open subagent (finished), the open step;
        with `finish` False (a held run, still working) both stay open, without their end events."""
        if not finish:
            if self.subagent is not None:
                self.ranges.append((self.subagent_start, at, self.subagent))
            return []
        events: list[Event] = []
        if self.subagent is not None:
            events += self.close_subagent(at, SubagentFinishedEvent(subagent_run_id=self.subagent))
        return events + self.close_step()

    def attribute(self, events: list[Event]) -> None:
        """Give each event of a subagent's range (one that can carry it) the subagent's run id."""
        for start, end, run_id in self.ranges:
            for index in range(start, end):
                event = events[index]
                if isinstance(event, BaseEvent) and "subagent_run_id" in type(event).model_fields \
                        and getattr(event, "subagent_run_id", None) is None:
                    events[index] = event.model_copy(update={"subagent_run_id": run_id})


class Framed:
    """A step of a turn written through the `Framing`."""

    def events(self, framing: Framing, at: int) -> list[Event]:
        raise NotImplementedError


@dataclass
class Reason(Framed):
    text: str
    encrypted: str | None
    chunks: int
    legacy: bool

    def events(self, framing: Framing, at: int) -> list[Event]:
        if self.legacy:  # as servers before AG-UI 1.0 sent it: no ids, no encrypted value
            return [{"type": "THINKING_START"}, {"type": "THINKING_TEXT_MESSAGE_START"},
                    *({"type": "THINKING_TEXT_MESSAGE_CONTENT", "delta": piece} for piece in _cut(self.text, self.chunks)),
                    {"type": "THINKING_TEXT_MESSAGE_END"}, {"type": "THINKING_END"}]
        message_id = _id("reasoning")
        events: list[Event] = [ReasoningStartEvent(message_id=message_id)]
        if self.text:
            events += [ReasoningMessageStartEvent(message_id=message_id, role="reasoning"),
                       *(ReasoningMessageContentEvent(message_id=message_id, delta=piece)
                         for piece in _cut(self.text, self.chunks)),
                       ReasoningMessageEndEvent(message_id=message_id)]
        if self.encrypted is not None:
            events.append(ReasoningEncryptedValueEvent(subtype="message", entity_id=message_id,
                                                       encrypted_value=self.encrypted))
        events.append(ReasoningEndEvent(message_id=message_id))
        return events


@dataclass
class Step(Framed):
    name: str

    def events(self, framing: Framing, at: int) -> list[Event]:
        events = framing.close_step()
        framing.step = self.name
        return [*events, StepStartedEvent(step_name=self.name)]


@dataclass
class Custom(Framed):
    name: str
    value: Any

    def events(self, framing: Framing, at: int) -> list[Event]:
        return [CustomEvent(name=self.name, value=self.value)]


@dataclass
class StartSubagent(Framed):
    name: str
    description: str | None
    run_id: str | None
    parent_tool_call_id: str | None

    def events(self, framing: Framing, at: int) -> list[Event]:
        events: list[Event] = []
        if framing.subagent is not None:  # one at a time: the open one finishes first
            events += framing.close_subagent(at, SubagentFinishedEvent(subagent_run_id=framing.subagent))
        run_id = self.run_id or _id("subagent")
        events.append(SubagentStartedEvent(subagent_run_id=run_id, name=self.name, description=self.description,
                                           parent_tool_call_id=self.parent_tool_call_id))
        framing.subagent, framing.subagent_start = run_id, at + len(events)
        framing.fresh_message = True
        return events


@dataclass
class EndSubagent(Framed):
    error: str | None
    result: Any
    suspended: bool

    def events(self, framing: Framing, at: int) -> list[Event]:
        run_id = framing.subagent
        if run_id is None:
            raise ValueError("end_subagent() without an open subagent: script `subagent(name)` before it.")
        if self.error is not None:
            end: Event = SubagentErrorEvent(subagent_run_id=run_id, message=self.error)
        else:
            end = SubagentFinishedEvent.model_validate({
                "subagentRunId": run_id, "result": self.result,
                **({"outcome": {"type": "suspended"}} if self.suspended else {})})
        return framing.close_subagent(at, end)
