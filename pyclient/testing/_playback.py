"""How a scripted turn plays: its first response and its follow-up, as AG-UI events (no I/O).

A `Playback` holds what a `Turn` (`pyclient.testing._script`) was scripted to do: its steps,
its interrupts, its state snapshot, its follow-up and how its run ends. `first(run)` answers
the user message the turn matched, with fresh ids for what the script left unnamed;
`follow_up(run)` answers the request that carries the turn's tool results or resumes its
interrupts. What the latest first response sent (its client calls, its interrupts, the server
calls waiting for approval) is kept to read that request by.

```python
from ag_ui.core import RunAgentInput, UserMessage
from pyclient.testing._playback import Playback
from pyclient.testing._steps import TextStep

playback = Playback()
playback.steps.append(TextStep("Hello", 2, "m1"))
run = RunAgentInput(thread_id="t", run_id="r1", messages=[UserMessage(id="u1", content="hi")],
                    tools=[], context=[], state={}, forwarded_props={})
print([event.type.value for event in playback.first(run).events][1:-1])
# ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']
print(playback.times, playback.follow_up(run).events[-1].type.value)   # 1 RUN_FINISHED
```
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Union

from ag_ui.core import (
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
    ToolMessage,
)

from ._framing import Framed, Framing
from ._response import Event, Response
from ._resumes import Content, ScriptedInterrupt, approval_outcome, describe, resumes_of
from ._steps import (
    ActivityStep,
    CallStep,
    EmittedStep,
    TextStep,
    cut_text,
    result_event,
    text_events,
)

__all__ = ["FollowUp", "Playback", "ScriptStep"]

FollowUp = Union[str, Callable[[list[Any]], str]]
"""A follow-up's text, or a function of what the page sent back: the tool messages (a list of
`ToolMessage`), or, for a turn that interrupts, the resume entries (a list of `ResumeEntry`)."""

ScriptStep = Union[TextStep, CallStep, EmittedStep, ActivityStep, Framed]
"""One step of a turn's first response, in script order."""


def _halfway(first: int, deltas: int) -> int:
    """The index of the event a `halfway` barrier holds back: the first delta of the second half
    of `deltas` deltas that start at `first`."""
    return first + (deltas + 1) // 2


class Playback:
    """What a turn was scripted to do, and what its latest responses sent.

    Attributes:
        steps: what the first response streams, in script order: texts, calls, events given
            as they are, activities, and the framing steps (reasoning, steps, subagents).
        interrupts: what the run pauses on, after the steps.
        state: the `STATE_SNAPSHOT` sent first (None: none).
        follow_up_text: the follow-up's text (None: what the page sent back, described).
        follow_up_chunks: the follow-up's deltas.
        hold_follow_up: the follow-up's run never finishes.
        finish: fields added to `RUN_FINISHED`, as given.
        hold: the first response's run never finishes.
        error: `(message, code)` of a `RUN_ERROR` that ends the run instead.
        http: `(status, body, content type)` answered instead of a stream.
        drop_after: the connection closes after this many events.
        delay_s: seconds before each event.
        times: how many requests the turn has answered (first responses and follow-ups).
        interrupt_ids: the ids of the interrupts the latest first response raised, in script order.
        legacy_ids: those of `interrupt_ids` sent as LangGraph's legacy `on_interrupt` event.
    """

    def __init__(self) -> None:
        self.steps: list[ScriptStep] = []
        self.interrupts: list[ScriptedInterrupt] = []
        self.state: Any = None
        self.follow_up_text: FollowUp | None = None
        self.follow_up_chunks = 1
        self.hold_follow_up = False
        self.finish: dict[str, Any] = {}
        self.hold = False
        self.error: tuple[str, str | None] | None = None
        self.http: tuple[int, str, str | None] | None = None
        self.drop_after: int | None = None
        self.delay_s = 0.0
        self.times = 0
        self.interrupt_ids: list[str] = []
        self.legacy_ids: list[str] = []
        self._sent_ids: set[str] = set()   # the client calls of the latest first response
        self._approvals: dict[str, tuple[str, Content]] = {}  # interrupt id -> (call id, result), latest response

    def first(self, run: RunAgentInput, *, before: Iterable[Event] = ()) -> Response:
        """The response to the user message the turn matched (or to the follow-up, for a turn
        made by `Turn.then()`), with the events `before` after `RUN_STARTED`."""
        events: list[Event] = list(before)
        waits: dict[int, threading.Event] = {}   # index in `events` -> sent once it is set
        if self.state is not None:
            events.append(StateSnapshotEvent(snapshot=self.state))
        message_id = f"msg_{uuid.uuid4().hex[:12]}"
        self._sent_ids = set()
        call_ids: dict[int, str] = {}
        framing = Framing()
        activity_ids: dict[str, str] = {}
        for index, step in enumerate(self.steps):
            if framing.fresh_message:  # a subagent started or ended: its texts and calls are its own
                message_id, framing.fresh_message = f"msg_{uuid.uuid4().hex[:12]}", False
            if isinstance(step, Framed):
                events += step.events(framing, len(events))
                continue
            if isinstance(step, ActivityStep):
                events.append(step.event(activity_ids))
                continue
            if isinstance(step, TextStep):
                message_id = step.message_id or f"msg_{uuid.uuid4().hex[:12]}"
                text = text_events(message_id, step.text, step.chunks)   # start, the deltas, end
                if step.halfway is not None:
                    waits[_halfway(len(events) + 1, len(text) - 2)] = step.halfway
                events += text
                continue
            if isinstance(step, EmittedStep):
                events += step.events
                continue
            # A call belongs to the text before it: a model's answer with text and tool calls
            # is one assistant message.
            call_id = call_ids[index] = step.call_id or f"call_{uuid.uuid4().hex[:12]}"
            if step.result is None:
                self._sent_ids.add(call_id)
            events.append(ToolCallStartEvent(tool_call_id=call_id, tool_call_name=step.name,
                                             parent_message_id=message_id))
            pieces = cut_text(step.arguments, step.chunks)
            if step.halfway is not None:
                waits[_halfway(len(events), len(pieces))] = step.halfway
            events += [ToolCallArgsEvent(tool_call_id=call_id, delta=piece) for piece in pieces]
            events.append(ToolCallEndEvent(tool_call_id=call_id))
            if step.result is not None and not step.approval:
                events.append(result_event(call_id, step.result))
        events += framing.close(len(events), finish=not self.hold)
        framing.attribute(events)
        finish = self.finish
        raised = self._raise(call_ids, events)
        if raised:
            finish = {**finish, "outcome": {"type": "interrupt", "interrupts": raised}}
        return self._wrap(run, events, hold=self.hold, finish=finish, waits=waits)

    def _raise(self, call_ids: Mapping[int, str], events: list[Event]) -> list[dict[str, Any]]:
        """The turn's interrupts, with this response's ids: the legacy ones appended to `events`,
        the others returned for the outcome."""
        self.interrupt_ids, self.legacy_ids, self._approvals = [], [], {}
        raised = []
        for interrupt in self.interrupts:
            call_id = result = None
            if interrupt.call is not None:  # a server call's approval: "int-<call id>", as pydantic-ai names it
                step = self.steps[interrupt.call]
                call_id, result = call_ids[interrupt.call], getattr(step, "result", None)
            interrupt_id = interrupt.interrupt_id or (f"int-{call_id}" if call_id else f"int_{uuid.uuid4().hex[:12]}")
            self.interrupt_ids.append(interrupt_id)
            if call_id is not None and result is not None:
                self._approvals[interrupt_id] = (call_id, result)
            if interrupt.legacy:
                self.legacy_ids.append(interrupt_id)
                events.append(interrupt.legacy_event(interrupt_id, call_id))
            else:
                raised.append(interrupt.wire(interrupt_id, call_id))
        return raised

    def resumed(self, run: RunAgentInput) -> list[ResumeEntry]:
        """The resume entries of `run` that answer this turn's latest interrupts, in request order."""
        mine = set(self.interrupt_ids)
        return [entry for entry in resumes_of(run, self.legacy_ids) if entry.interrupt_id in mine]

    def resume_results(self, run: RunAgentInput) -> list[Event]:
        """The `TOOL_CALL_RESULT`s of the server calls whose approval `run` answered (see
        `server_call(..., requires_approval=True)`), in script order."""
        entries = {entry.interrupt_id: entry for entry in self.resumed(run)}
        return [result_event(call_id, approval_outcome(entries[interrupt_id], result))
                for interrupt_id, (call_id, result) in self._approvals.items() if interrupt_id in entries]

    def follow_up(self, run: RunAgentInput) -> Response:
        """The response to the request that carries this turn's tool results, or resumes its
        interrupts (the results of the server calls it approved first)."""
        follow_up = self.follow_up_text
        if self.interrupt_ids:
            entries = self.resumed(run) or resumes_of(run, self.legacy_ids)
            given: list[Any] = entries
            default = describe(entries)
        else:
            results = [m for m in run.messages if isinstance(m, ToolMessage)]
            given = [m for m in results if m.tool_call_id in self._sent_ids] or results
            default = " | ".join(m.content if isinstance(m.content, str) else str(m.content) for m in given)
        if follow_up is None:
            text = default
        elif callable(follow_up):
            text = follow_up(given)
        else:
            text = follow_up
        message_id = f"msg_{uuid.uuid4().hex[:12]}"
        events = text_events(message_id, text, self.follow_up_chunks) if text else []
        if self.hold_follow_up:  # a reply still being written: no TEXT_MESSAGE_END yet
            events = events[:-1]
        return self._wrap(run, [*self.resume_results(run), *events], hold=self.hold_follow_up)

    def _wrap(self, run: RunAgentInput, events: list[Event], *, hold: bool = False,
              finish: Mapping[str, Any] | None = None, waits: Mapping[int, threading.Event] | None = None) -> Response:
        self.times += 1
        if self.http is not None:
            status, body, content_type = self.http
            return Response(status=status, body=body, content_type=content_type)
        framed: list[Event] = [RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id), *events]
        if not hold:  # a held run stays open: neither RUN_FINISHED nor RUN_ERROR
            framed.append(self._end(run, finish))
        return Response(events=framed, drop_after=self.drop_after, delay_s=self.delay_s, hold=hold,
                        waits={index + 1: gate for index, gate in (waits or {}).items()})   # after RUN_STARTED

    def _end(self, run: RunAgentInput, finish: Mapping[str, Any] | None) -> Event:
        if self.error is not None:
            return RunErrorEvent(message=self.error[0], code=self.error[1])
        if finish:  # as given, on the wire: `outcome` may be one ag_ui's model would refuse
            return {"type": "RUN_FINISHED", "threadId": run.thread_id, "runId": run.run_id, **finish}
        return RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)
