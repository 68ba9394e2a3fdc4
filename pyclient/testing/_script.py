"""The script of a scripted AG-UI agent: which user message gets which events, with no I/O.

A script is a list of turns. `ScriptedAgent.on(match)` starts one: the user message that
matches (a substring, case-insensitive, or a compiled regex) gets the turn's first response
(its text, its tool calls, its interrupts, or a failure); once the page sends the tool
results back, or resumes the interrupts, the follow-up gets `then_say(...)`. Each method
returns the turn, so a turn reads as one line; how a turn plays, as events, is
`pyclient.testing._playback`'s. The agent records every request (`requests`) and every
interrupt's answer (`resumes`, `wait_for_resume()`).

```python
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("make it blue").call("change_background", background="blue").then_say("Done")
request = {"threadId": "t", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "Make it blue"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
print([event.type.value for event in agent.respond(request).events])
# ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']

agent.on("pick a colour").interrupt("Which colour?", interrupt_id="i1").then_say(
    lambda resumes: f"You chose {resumes[0].payload['colour']}")
request["messages"][0]["content"] = "Pick a colour"
print(agent.respond(request).events[-1]["outcome"]["interrupts"])
# [{'id': 'i1', 'reason': 'input_required', 'message': 'Which colour?'}]
resumed = {**request, "runId": "r2", "resume": [{"interruptId": "i1", "status": "resolved", "payload": {"colour": "blue"}}]}
print(agent.respond(resumed).events[2].delta, agent.resumes[0].payload)   # You chose blue {'colour': 'blue'}
```
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Union

from ag_ui.core import ResumeEntry, RunAgentInput

from .._base._forward import Forward
from ._framing import Custom, EndSubagent, Reason, StartSubagent, Step
from ._playback import FollowUp, Playback
from ._response import Event, Response
from ._resumes import APPROVAL_SCHEMA, ScriptedInterrupt
from ._steps import (
    ActivityStep,
    CallStep,
    EmittedStep,
    TextStep,
    call_arguments,
    compact_arguments,
    result_content,
)

__all__ = ["Match", "Turn"]

Match = Union[str, "re.Pattern[str]"]
"""What a turn answers: a user message that contains this text (in any case), or in which this regex finds a match."""


class Turn:
    """One scripted exchange: what the agent does for a matching user message, and after."""

    def __init__(self, match: Match | None, times: int | None = None) -> None:
        self.match = match
        self.limit = times
        self._playback = Playback()  # what the methods below script, and how it plays
        self.next_turn: Turn | None = None     # then(): the follow-up is a turn of its own
        self.matched = 0
        """How many user messages this turn has answered (its first responses)."""

    times: Forward[int] = Forward("_playback", "How many requests this turn has answered (first responses and follow-ups).")
    interrupt_ids: Forward[list[str]] = Forward(
        "_playback", "The ids of the interrupts the turn's latest first response raised, in script order.")
    legacy_ids: Forward[list[str]] = Forward(
        "_playback", "Those of `interrupt_ids` sent as LangGraph's legacy `on_interrupt` event.")

    def __repr__(self) -> str:
        calls = sum(isinstance(step, CallStep) for step in self._playback.steps)
        interrupts = f", {len(self._playback.interrupts)} interrupts" if self._playback.interrupts else ""
        return f"<Turn on {self.match!r}: {calls} calls{interrupts}>"

    def exhausted(self) -> bool:
        """True once the turn has answered as many user messages as `on(..., times=)` allows."""
        return self.limit is not None and self.matched >= self.limit

    def say(self, text: str, *, chunks: int = 1, message_id: str | None = None,
            halfway: threading.Event | None = None) -> Turn:
        """Stream `text` as an assistant message, cut into `chunks` deltas; the calls scripted
        after it belong to that message.

        Args:
            text: the message's text.
            chunks: stream it in this many `TEXT_MESSAGE_CONTENT` deltas.
            message_id: the `messageId` (by default a fresh one each time the turn answers).
            halfway: the stream stops after the first half of the deltas until the test sets
                this event (as `call`'s).
        """
        self._playback.steps.append(TextStep(text, max(1, chunks), message_id, halfway))
        return self

    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None, /, *, chunks: int = 1,
             call_id: str | None = None, halfway: threading.Event | None = None, **kwargs: Any) -> Turn:
        """Call the client tool `name`; several `call`s in one turn are parallel calls.

        Args:
            name: the tool name.
            arguments: the arguments as a dict (or raw JSON text, even invalid, for bad-input
                tests); or give them as keyword arguments.
            chunks: stream the argument JSON in this many `TOOL_CALL_ARGS` deltas.
            call_id: the `toolCallId` (by default a fresh one each time the turn answers).
            halfway: the stream stops after the first half of the deltas until the test sets
                this event: a renderer's partial input stays on the page for as long as the
                test needs to see it, however busy the machine.
        """
        self._playback.steps.append(CallStep(name, call_arguments(arguments, kwargs), max(1, chunks),
                                 call_id, halfway=halfway))
        return self

    def server_call(self, name: str, arguments: Mapping[str, Any] | str | None = None, /, *, result: Any,
                    chunks: int = 1, call_id: str | None = None, requires_approval: bool = False,
                    **kwargs: Any) -> Turn:
        """A call the agent runs itself: the call streams, then its `TOOL_CALL_RESULT` with `result`.

        The page only shows it (no handler runs, nothing is sent back); the arguments are given
        as for `call()`. `result` is the text, or what a tool may return with files: a
        `pyclient.Image` (any `Media`), or a list of texts and files (ag-ui part models and
        their JSON too), sent as content parts: the text first, then one part per file.

        With `requires_approval=True` the agent asks first, as pydantic-ai does for a tool
        registered with `requires_approval=True`: the call streams without a result and the run
        ends with an interrupt naming it (id `"int-<call id>"`, reason `"tool_call"`, message
        `"Approve name({...})?"`, the approval schema: `approved`, `editedArgs`, `reason`). The
        request that resumes it gets, before the follow-up, the call's `TOOL_CALL_RESULT`:
        `result` when resolved with `{"approved": true}`; the reason (or "The tool call was
        denied.") when not approved; "Cancelled by user." when cancelled.
        """
        text = call_arguments(arguments, kwargs)
        self._playback.steps.append(CallStep(name, text, max(1, chunks), call_id, result_content(result), approval=requires_approval))
        if requires_approval:
            self._add_interrupt(ScriptedInterrupt(
                reason="tool_call", message=f"Approve {name}({compact_arguments(text)})?",
                response_schema=APPROVAL_SCHEMA, call=len(self._playback.steps) - 1))
        return self

    def interrupt(self, message: str | None = None, *, reason: str = "input_required",
                  response_schema: Mapping[str, Any] | None = None, tool_call_id: str | None = None,
                  interrupt_id: str | None = None, expires_at: str | datetime | None = None,
                  metadata: Mapping[str, Any] | None = None, legacy: bool = False) -> Turn:
        """End the run paused on an AG-UI interrupt: something only the person can answer.

        The turn's `RUN_FINISHED` carries `outcome={"type": "interrupt", "interrupts": [...]}`,
        one entry per `interrupt()` of the turn (after its texts and calls). The page answers
        with `interrupt.resolve(payload)` or `cancel()`; the request that resumes (its `resume`
        entries name the interrupt) gets the follow-up, `then_say(...)`, whose function
        receives the resume entries; the agent records them in `resumes`
        (`wait_for_resume()` waits for one).

        Args:
            message: the prompt for the person.
            reason: why the run stopped (`"input_required"`, `"confirmation"`, `"tool_call"`...).
            response_schema: the JSON Schema of the answer (the page checks it before sending).
            tool_call_id: the call the interrupt concerns (for a server tool's approval,
                `server_call(..., requires_approval=True)` writes the call and its interrupt).
            interrupt_id: the interrupt's id (by default a fresh one each time the turn answers).
            expires_at: when it can no longer be answered (ISO 8601 text or a `datetime`).
            metadata: anything else the interrupt carries.
            legacy: speak LangGraph's dialect before AG-UI 1.0 instead: a `CUSTOM`
                `on_interrupt` event (its `value` the JSON of these fields, `rawEvent.id` the
                id) and a bare `RUN_FINISHED`; the page resumes through
                `forwardedProps.command.resume`, recorded in `resumes` as the same entries.

        Raises:
            ValueError: the turn's `finish(outcome=...)` already says how the run ends.
        """
        when = expires_at.isoformat() if isinstance(expires_at, datetime) else expires_at
        self._add_interrupt(ScriptedInterrupt(reason, message, response_schema, tool_call_id, interrupt_id,
                                              when, metadata, legacy))
        return self

    def _add_interrupt(self, interrupt: ScriptedInterrupt) -> None:
        if not interrupt.legacy and "outcome" in self._playback.finish:
            raise ValueError("This turn's `finish(outcome=...)` already says how its run ends: a turn's "
                             "interrupts are its outcome. Script one or the other.")
        self._playback.interrupts.append(interrupt)

    def emit(self, *events: Event) -> Turn:
        """Stream these events as they are, in script order with the turn's texts and calls.

        For what `say()` and `call()` do not write: a `MESSAGES_SNAPSHOT`, a `STATE_DELTA`, a
        custom event, or a server that breaks the protocol.

        Args:
            *events: `ag_ui.core` events; dicts, sent as their JSON with the keys as given
                (wire names: `{"type": "BRAND_NEW", "toolCallId": "c1"}`, an event pyclient does
                not know or a field of the wrong type); or strings, each the data of one SSE
                event as written (JSON whose escapes must stay as they are, JSON nested deeper
                than `json.dumps` goes, or not JSON at all).
        """
        self._playback.steps.append(EmittedStep(events))
        return self

    # Reasoning, steps, custom events and subagents: their events are written by `_framing`.

    def reason(self, text: str, *, encrypted: str | None = None, chunks: int = 1, legacy: bool = False) -> Turn:
        """Stream reasoning: `text` in `chunks` deltas as a reasoning message (`REASONING_*`), and
        `encrypted`, the provider's opaque value, as its `REASONING_ENCRYPTED_VALUE` (the page
        keeps it and sends it back; `text` may be "" for encrypted reasoning alone). `legacy=True`
        sends the `THINKING_*` events of servers before AG-UI 1.0 instead (no encrypted value)."""
        if legacy and encrypted is not None:
            raise ValueError("THINKING_* events have no encrypted value: script `reason(text, encrypted=...)` "
                             "without `legacy=True`.")
        self._playback.steps.append(Reason(text, encrypted, max(1, chunks), legacy))
        return self

    def step(self, name: str) -> Turn:
        """Start the step `name` (`STEP_STARTED`): it wraps what is scripted after it, and its
        `STEP_FINISHED` comes before the next `step()` starts, or after the turn's last event."""
        self._playback.steps.append(Step(name))
        return self

    def custom(self, name: str, value: Any = None) -> Turn:
        """Send a `CUSTOM` event `name` with `value` (what `thread.on_custom(name, ...)` receives)."""
        self._playback.steps.append(Custom(name, value))
        return self

    def subagent(self, name: str, *, description: str | None = None, subagent_run_id: str | None = None,
                 parent_tool_call_id: str | None = None) -> Turn:
        """Start a subagent (`SUBAGENT_STARTED`): what is scripted after it (texts, calls,
        reasoning, steps, custom events) carries its `subagentRunId` until `end_subagent()`,
        the next `subagent()`, or the turn's last event (then it is finished).

        Args:
            name: the subagent's name.
            description: what it is for.
            subagent_run_id: the invocation's id (by default a fresh one each time the turn answers).
            parent_tool_call_id: the tool call that spawned it.
        """
        self._playback.steps.append(StartSubagent(name, description, subagent_run_id, parent_tool_call_id))
        return self

    def end_subagent(self, *, error: str | None = None, result: Any = None, suspended: bool = False) -> Turn:
        """End the open subagent: `SUBAGENT_FINISHED` (with `result`, and the `"suspended"`
        outcome when `suspended`), or `SUBAGENT_ERROR` with the message `error`."""
        self._playback.steps.append(EndSubagent(error, result, suspended))
        return self

    def finish(self, **fields: Any) -> Turn:
        """Add `fields` to the turn's `RUN_FINISHED`, under their wire names (AG-UI 1.0's
        `outcome={"type": "success", "pendingToolCallIds": [...]}`, say), sent as given.

        Raises:
            ValueError: `outcome` for a turn that scripts interrupts (`interrupt()` writes its outcome).
        """
        if "outcome" in fields and any(not interrupt.legacy for interrupt in self._playback.interrupts):
            raise ValueError("This turn's interrupts are its `RUN_FINISHED.outcome`: leave `outcome` out of "
                             "`finish()`, or script the outcome yourself without `interrupt()`.")
        self._playback.finish = fields
        return self

    def then_say(self, text: FollowUp, *, chunks: int = 1, hold: bool = False) -> Turn:
        """Answer the follow-up (the tool results) with `text`, or `text(tool_messages)`, cut
        into `chunks` deltas. For a turn that interrupts, the follow-up answers the request
        that resumes it, and a function gets `text(resume_entries)` (`ag_ui.core.ResumeEntry`:
        `interrupt_id`, `status`, `payload`; its tool messages are in `agent.tool_messages`).

        With `hold=True` the text streams but the run never finishes: the response stays open
        until the page goes away or stops it (see `hold()`).
        """
        self._playback.follow_up_text = text
        self._playback.follow_up_chunks = max(1, chunks)
        self._playback.hold_follow_up = hold
        return self

    def then(self) -> Turn:
        """Answer the follow-up (the tool results, or the resume) with a turn of its own, and
        return that turn: a model that calls tools again once it has the results,
        `on("plan").call("search", q="x").then().call("book", id=1).then_say("Booked")`."""
        self.next_turn = Turn(None)
        return self.next_turn

    def hold(self) -> Turn:
        """Keep the run open after the turn's events, without `RUN_FINISHED`, until the page
        goes away or stops it: to test a Stop button, a reload mid-run, or what the page shows
        while the agent is still working."""
        self._playback.hold = True
        return self

    def fail(self, message: str, code: str | None = None) -> Turn:
        """End the run with `RUN_ERROR` (after any text of the turn)."""
        self._playback.error = (message, code)
        return self

    def http_error(self, status: int, body: str = "") -> Turn:
        """Answer with an HTTP error status instead of a stream."""
        self._playback.http = (status, body, None)
        return self

    def respond_with(self, body: str, *, content_type: str = "text/html; charset=utf-8", status: int = 200) -> Turn:
        """Answer with `body` as `content_type` instead of an event stream: what a login page, a
        site's fallback page or a proxy's error page answers in the agent's place (pyclient
        refuses any answer that is not `text/event-stream`, before reading it)."""
        self._playback.http = (status, body, content_type)
        return self

    def drop(self, after: int = 1) -> Turn:
        """Close the connection after `after` events, before `RUN_FINISHED`."""
        self._playback.drop_after = after
        return self

    def slowly(self, delay_s: float = 0.2) -> Turn:
        """Wait `delay_s` seconds before each event (to stop a run mid-stream, or see it stream)."""
        self._playback.delay_s = delay_s
        return self

    def state(self, snapshot: Any) -> Turn:
        """Send a `STATE_SNAPSHOT` with `snapshot` first."""
        self._playback.state = snapshot
        return self

    # -- activities and shared state (AG-UI 1.0) --------------------------------------------

    def activity(self, activity_type: str, content: Any = None, *, message_id: str | None = None,
                 patch: list[Any] | None = None, replace: bool | None = None) -> Turn:
        """Stream an AG-UI activity, in script order: `ACTIVITY_SNAPSHOT` with `content` (a
        dict; anything else is sent as given, for malformed-activity tests), or with `patch`
        an `ACTIVITY_DELTA` (JSON Patch operations on its content, sent as given).

        Args:
            activity_type: the `activityType` (`"search"`, `"plan"`...).
            content: the snapshot's content.
            message_id: the activity message's id; by default a fresh one each response for a
                snapshot, and for a delta the id of the turn's last activity of this type.
            patch: make it a delta with these operations.
            replace: the snapshot's `replace` (sent only when given; `False`: a client keeps
                the content it has for this id).
        """
        if (patch is None) == (content is None):
            raise ValueError("Turn.activity() takes `content` (a snapshot) or `patch=` (a delta), one of the two.")
        self._playback.steps.append(ActivityStep(activity_type, content, list(patch) if patch is not None else None,
                                     message_id, replace))
        return self

    def state_delta(self, patch: Iterable[Any]) -> Turn:
        """Stream a `STATE_DELTA` with these JSON Patch operations (sent as given), in script order
        (`state(snapshot)` sends the turn's first `STATE_SNAPSHOT`)."""
        self._playback.steps.append(EmittedStep(({"type": "STATE_DELTA", "delta": list(patch)},)))
        return self

    # -- responses (`pyclient.testing._playback`) ------------------------------------------------

    def first(self, run: RunAgentInput, *, before: Iterable[Event] = ()) -> Response:
        """The response to the user message this turn matched (or to the follow-up, for a turn
        made by `then()`), with the events `before` after `RUN_STARTED`."""
        return self._playback.first(run, before=before)

    def resumed(self, run: RunAgentInput) -> list[ResumeEntry]:
        """The resume entries of `run` that answer this turn's latest interrupts, in request order."""
        return self._playback.resumed(run)

    def resume_results(self, run: RunAgentInput) -> list[Event]:
        """The `TOOL_CALL_RESULT`s of the server calls whose approval `run` answered (see
        `server_call(..., requires_approval=True)`), in script order."""
        return self._playback.resume_results(run)

    def follow_up(self, run: RunAgentInput) -> Response:
        """The response to the request that carries this turn's tool results, or resumes its
        interrupts (the results of the server calls it approved first)."""
        return self._playback.follow_up(run)
