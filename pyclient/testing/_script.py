"""The script of a scripted AG-UI agent: which user message gets which events, with no I/O.

A script is a list of turns. `ScriptedAgent.on(match)` starts one: the user message that
matches (a substring, case-insensitive, or a compiled regex) gets the turn's first response
(its text, its tool calls, or a failure); once the page sends the tool results back, the
follow-up gets `then_say(...)`. Each method returns the turn, so a turn reads as one line.

```python
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("make it blue").call("change_background", background="blue").then_say("Done")
request = {"threadId": "t", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "Make it blue"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
print([event.type.value for event in agent.respond(request).events])
# ['RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']
```
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Union

from ag_ui.core import (
    AssistantMessage,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)

from .. import Agent, ClientTool, MockTransport, Thread
from ._response import Event, Response, in_process
from ._server import ServerThread, agent_app

__all__ = ["ScriptedAgent", "Turn"]

Match = Union[str, "re.Pattern[str]"]
FollowUp = Union[str, Callable[[list[ToolMessage]], str]]


@dataclass
class _Call:
    name: str
    arguments: str
    chunks: int
    call_id: str | None         # None: a fresh id each time the turn answers
    result: str | None = None   # set for a call the agent runs itself (server side)


@dataclass
class _Text:
    text: str
    chunks: int
    message_id: str | None      # None: a fresh id each time the turn answers


@dataclass
class _Emitted:
    events: tuple[Event, ...]


class Turn:
    """One scripted exchange: what the agent does for a matching user message, and after."""

    def __init__(self, match: Match | None, times: int | None = None) -> None:
        self.match = match
        self.limit = times
        # What the first response streams, in script order: texts (text, chunks), calls and
        # events given as they are.
        self._steps: list[_Text | _Call | _Emitted] = []
        self._sent_ids: set[str] = set()   # the client calls of the turn's latest first response
        self._follow_up: FollowUp | None = None
        self._follow_up_chunks = 1
        self.next_turn: Turn | None = None     # then(): the follow-up is a turn of its own
        self._finish: dict[str, Any] = {}
        self._hold = self._hold_follow_up = False
        self._error: tuple[str, str | None] | None = None
        self._http: tuple[int, str] | None = None
        self._drop_after: int | None = None
        self._delay_s = 0.0
        self._state: Any = None
        self.times = 0
        """How many requests this turn has answered (first responses and follow-ups)."""
        self.matched = 0
        """How many user messages this turn has answered (its first responses)."""

    def __repr__(self) -> str:
        calls = sum(isinstance(step, _Call) for step in self._steps)
        return f"<Turn on {self.match!r}: {calls} calls>"

    def exhausted(self) -> bool:
        """True once the turn has answered as many user messages as `on(..., times=)` allows."""
        return self.limit is not None and self.matched >= self.limit

    def say(self, text: str, *, chunks: int = 1, message_id: str | None = None) -> Turn:
        """Stream `text` as an assistant message, cut into `chunks` deltas; the calls scripted
        after it belong to that message.

        Args:
            text: the message's text.
            chunks: stream it in this many `TEXT_MESSAGE_CONTENT` deltas.
            message_id: the `messageId` (by default a fresh one each time the turn answers).
        """
        self._steps.append(_Text(text, max(1, chunks), message_id))
        return self

    def call(self, name: str, arguments: Mapping[str, Any] | str | None = None, /, *, chunks: int = 1,
             call_id: str | None = None, **kwargs: Any) -> Turn:
        """Call the client tool `name`; several `call`s in one turn are parallel calls.

        Args:
            name: the tool name.
            arguments: the arguments as a dict (or raw JSON text, even invalid, for bad-input
                tests); or give them as keyword arguments.
            chunks: stream the argument JSON in this many `TOOL_CALL_ARGS` deltas.
            call_id: the `toolCallId` (by default a fresh one each time the turn answers).
        """
        self._steps.append(_Call(name, _arguments(arguments, kwargs), max(1, chunks),
                                 call_id))
        return self

    def server_call(self, name: str, arguments: Mapping[str, Any] | str | None = None, /, *, result: str,
                    chunks: int = 1, call_id: str | None = None, **kwargs: Any) -> Turn:
        """A call the agent runs itself: the call streams, then its `TOOL_CALL_RESULT` with `result`.

        The page only shows it (no handler runs, nothing is sent back); the arguments are given
        as for `call()`.
        """
        self._steps.append(_Call(name, _arguments(arguments, kwargs), max(1, chunks),
                                 call_id, result))
        return self

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
        self._steps.append(_Emitted(events))
        return self

    def finish(self, **fields: Any) -> Turn:
        """Add `fields` to the turn's `RUN_FINISHED`, under their wire names (AG-UI 1.0's
        `outcome={"type": "interrupt", "pendingToolCallIds": [...]}`, say), sent as given."""
        self._finish = fields
        return self

    def then_say(self, text: FollowUp, *, chunks: int = 1, hold: bool = False) -> Turn:
        """Answer the follow-up (the tool results) with `text`, or `text(tool_messages)`, cut
        into `chunks` deltas.

        With `hold=True` the text streams but the run never finishes: the response stays open
        until the page goes away or stops it (see `hold()`).
        """
        self._follow_up = text
        self._follow_up_chunks = max(1, chunks)
        self._hold_follow_up = hold
        return self

    def then(self) -> Turn:
        """Answer the follow-up (the tool results) with a turn of its own, and return that turn:
        a model that calls tools again once it has the results,
        `on("plan").call("search", q="x").then().call("book", id=1).then_say("Booked")`."""
        self.next_turn = Turn(None)
        return self.next_turn

    def hold(self) -> Turn:
        """Keep the run open after the turn's events, without `RUN_FINISHED`, until the page
        goes away or stops it: to test a Stop button, a reload mid-run, or what the page shows
        while the agent is still working."""
        self._hold = True
        return self

    def fail(self, message: str, code: str | None = None) -> Turn:
        """End the run with `RUN_ERROR` (after any text of the turn)."""
        self._error = (message, code)
        return self

    def http_error(self, status: int, body: str = "") -> Turn:
        """Answer with an HTTP error status instead of a stream."""
        self._http = (status, body)
        return self

    def drop(self, after: int = 1) -> Turn:
        """Close the connection after `after` events, before `RUN_FINISHED`."""
        self._drop_after = after
        return self

    def slowly(self, delay_s: float = 0.2) -> Turn:
        """Wait `delay_s` seconds before each event (to stop a run mid-stream, or see it stream)."""
        self._delay_s = delay_s
        return self

    def state(self, snapshot: Any) -> Turn:
        """Send a `STATE_SNAPSHOT` with `snapshot` first."""
        self._state = snapshot
        return self

    # -- responses --------------------------------------------------------------------------

    def first(self, run: RunAgentInput) -> Response:
        """The response to the user message this turn matched (or to the follow-up, for a turn
        made by `then()`)."""
        events: list[Event] = []
        if self._state is not None:
            events.append(StateSnapshotEvent(snapshot=self._state))
        message_id = f"msg_{uuid.uuid4().hex[:12]}"
        self._sent_ids = set()
        for step in self._steps:
            if isinstance(step, _Text):
                message_id = step.message_id or f"msg_{uuid.uuid4().hex[:12]}"
                events += _text_events(message_id, step.text, step.chunks)
                continue
            if isinstance(step, _Emitted):
                events += step.events
                continue
            # A call belongs to the text before it: a model's answer with text and tool calls
            # is one assistant message.
            call_id = step.call_id or f"call_{uuid.uuid4().hex[:12]}"
            if step.result is None:
                self._sent_ids.add(call_id)
            events.append(ToolCallStartEvent(tool_call_id=call_id, tool_call_name=step.name,
                                             parent_message_id=message_id))
            events += [ToolCallArgsEvent(tool_call_id=call_id, delta=piece)
                       for piece in _cut(step.arguments, step.chunks)]
            events.append(ToolCallEndEvent(tool_call_id=call_id))
            if step.result is not None:
                events.append(ToolCallResultEvent(message_id=f"msg_{uuid.uuid4().hex[:12]}",
                                                  tool_call_id=call_id, content=step.result, role="tool"))
        return self._wrap(run, events, hold=self._hold, finish=self._finish)

    def follow_up(self, run: RunAgentInput) -> Response:
        """The response to the request that carries this turn's tool results."""
        results = [m for m in run.messages if isinstance(m, ToolMessage)]
        mine = [m for m in results if m.tool_call_id in self._sent_ids] or results
        follow_up = self._follow_up
        if follow_up is None:
            text = " | ".join(m.content if isinstance(m.content, str) else str(m.content) for m in mine)
        elif callable(follow_up):
            text = follow_up(mine)
        else:
            text = follow_up
        message_id = f"msg_{uuid.uuid4().hex[:12]}"
        events = _text_events(message_id, text, self._follow_up_chunks) if text else []
        if self._hold_follow_up:  # a reply still being written: no TEXT_MESSAGE_END yet
            events = events[:-1]
        return self._wrap(run, events, hold=self._hold_follow_up)

    def _wrap(self, run: RunAgentInput, events: list[Event], *, hold: bool = False,
              finish: Mapping[str, Any] | None = None) -> Response:
        self.times += 1
        if self._http is not None:
            return Response(status=self._http[0], body=self._http[1])
        framed: list[Event] = [RunStartedEvent(thread_id=run.thread_id, run_id=run.run_id), *events]
        if not hold:  # a held run stays open: neither RUN_FINISHED nor RUN_ERROR
            framed.append(self._end(run, finish))
        return Response(events=framed, drop_after=self._drop_after, delay_s=self._delay_s, hold=hold)

    def _end(self, run: RunAgentInput, finish: Mapping[str, Any] | None) -> Event:
        if self._error is not None:
            return RunErrorEvent(message=self._error[0], code=self._error[1])
        if finish:  # as given, on the wire: `outcome` may be one ag_ui's model would refuse
            return {"type": "RUN_FINISHED", "threadId": run.thread_id, "runId": run.run_id, **finish}
        return RunFinishedEvent(thread_id=run.thread_id, run_id=run.run_id)


class ScriptedAgent:
    """A deterministic AG-UI agent driven by a script; `pyclient.testing` serves it over HTTP.

    Attributes:
        requests: every `RunAgentInput` received, in order (tools advertised, messages sent
            back: `requests[-1].tools`, the tool messages of `requests[-1].messages`).
    """

    def __init__(self) -> None:
        self._turns: list[Turn] = []
        self._default = Turn(None).say("(no scripted answer)")
        self._lock = threading.Lock()
        self._answered: dict[str, Turn] = {}   # user message id -> the turn that answered it
        self.requests: list[RunAgentInput] = []
        self.url: str | None = None
        """The endpoint's URL while it is served (`ScriptedAgent.serve()`), else None."""
        self._transport: MockTransport | None = None

    def on(self, match: Match, *, times: int | None = None) -> Turn:
        """A turn for the user messages that contain `match` (case-insensitive) or match a regex.

        Turns are tried in the order they were scripted. With `times=n` the turn answers the
        first n matching messages; later ones go to the next turn that matches (a failure
        once, then an answer: `on("x", times=1).http_error(503)`, then `on("x").say("ok")`).
        """
        turn = Turn(match, times)
        self._turns.append(turn)
        return turn

    def otherwise(self) -> Turn:
        """The turn for a user message no `on()` matches (by default it says "(no scripted answer)")."""
        self._default = Turn(None)
        return self._default

    @property
    def tool_messages(self) -> list[ToolMessage]:
        """The tool messages of the last request (what the page sent back)."""
        if not self.requests:
            return []
        return [m for m in self.requests[-1].messages if isinstance(m, ToolMessage)]

    @contextmanager
    def serve(self, path: str = "/agent") -> Iterator[str]:
        """Serve the agent over HTTP on a free 127.0.0.1 port while the block runs; yields its URL."""
        with ServerThread(agent_app(self, path), log_level="critical") as server:
            self.url = server.url + path
            try:
                yield self.url
            finally:
                self.url = None

    def transport(self) -> MockTransport:
        """A `pyclient.MockTransport` this agent answers in this process, with no server and no port.

        For CPython tests of a thread's logic, faster than HTTP and with nothing in between:
        `Agent("main", "http://agent.test/agent", transport=agent.transport())`. It is the same
        transport each time: its `requests` are every request the agent answered in this process,
        each with its JSON `body` as the client wrote it (`requests` here has them as
        `RunAgentInput`s). Events stream one a chunk; `slowly()`, `drop()` (a
        `pyclient.TransportError`), `hold()` and `http_error()` behave as over HTTP.
        """
        if self._transport is None:
            self._transport = in_process(self)
        return self._transport

    def thread(self, *, client_tools: Iterable[ClientTool] = (), **options: Any) -> Thread:
        """A CPython `pyclient.Thread` talking to this agent over HTTP (httpx); it must be served.

        Args:
            client_tools: the binding tools of the `pyclient.Agent` made for it.
            **options: passed to `agent.thread()` (`thread_id`, `store`, ...).
        """
        if self.url is None:
            raise RuntimeError("The scripted agent is not served: use `with agent.serve():` or the "
                               "`scripted_agent` fixture, which serves it.")
        return Agent("scripted", self.url, client_tools=client_tools).thread(**options)

    def result_of(self, tool_name: str) -> ToolMessage | None:
        """The last tool message sent back for a call of `tool_name`, in any request so far, or None."""
        with self._lock:
            requests = list(self.requests)
        for run in reversed(requests):
            names = {call.id: call.function.name for m in run.messages if isinstance(m, AssistantMessage)
                     for call in m.tool_calls or ()}
            for message in reversed(run.messages):
                if isinstance(message, ToolMessage) and names.get(message.tool_call_id) == tool_name:
                    return message
        return None

    def wait_for_result(self, tool_name: str, timeout_s: float = 30.0) -> ToolMessage:
        """Wait until the page has sent back the result of a call of `tool_name`; return that tool message.

        Polls `requests` (the result reaches the agent in the follow-up request).

        Raises:
            TimeoutError: no result for `tool_name` arrived within `timeout_s`; the message
                names the tools whose results did arrive.
        """
        deadline = time.monotonic() + timeout_s
        while (message := self.result_of(tool_name)) is None:
            if time.monotonic() > deadline:
                seen = sorted({call.function.name for run in list(self.requests) for m in run.messages
                               if isinstance(m, AssistantMessage) for call in m.tool_calls or ()})
                raise TimeoutError(
                    f"No result of a {tool_name!r} call reached the scripted agent within {timeout_s:g} s "
                    f"({len(self.requests)} requests; calls seen: {seen}). Check that the script calls "
                    "it and that the page registers a tool of that name."
                )
            time.sleep(0.05)
        return message

    def clear(self) -> None:
        """Forget the recorded requests (the script stays)."""
        with self._lock:
            self.requests.clear()

    def respond(self, body: Mapping[str, Any] | RunAgentInput) -> Response:
        """The response to one request body (recorded in `requests`)."""
        run = body if isinstance(body, RunAgentInput) else RunAgentInput.model_validate(body)
        with self._lock:
            self.requests.append(run)
        users = [m for m in run.messages if m.role == "user"]
        said = users[-1] if users else None
        if run.messages and run.messages[-1].role == "tool":
            # The follow-up goes to the turn that answered its user message, or to the turn
            # that turn's `then()` made, which answers the next follow-up in its turn.
            turn = (self._answered.get(said.id) if said is not None else None) or self._turn_for(said)
            if turn.next_turn is None:
                return turn.follow_up(run)
            turn = turn.next_turn
            turn.matched += 1
            if said is not None:
                self._answered[said.id] = turn
            return turn.first(run)
        turn = self._turn_for(said)
        turn.matched += 1
        if said is not None:
            self._answered[said.id] = turn
        return turn.first(run)

    def _turn_for(self, user: Any) -> Turn:
        said = user.content if user is not None and isinstance(user.content, str) else ""
        for turn in self._turns:
            if turn.exhausted():
                continue
            match = turn.match
            if isinstance(match, re.Pattern):
                if match.search(said):
                    return turn
            elif match is not None and match.lower() in said.lower():
                return turn
        return self._default


def _arguments(arguments: Mapping[str, Any] | str | None, kwargs: Mapping[str, Any]) -> str:
    if isinstance(arguments, str):
        return arguments
    return json.dumps({**(arguments or {}), **kwargs}, ensure_ascii=False)


def _cut(text: str, pieces: int) -> list[str]:
    if pieces <= 1 or len(text) <= 1:
        return [text]
    size = -(-len(text) // pieces)
    return [text[i:i + size] for i in range(0, len(text), size)]


def _text_events(message_id: str, text: str, chunks: int) -> list[Event]:
    return [
        TextMessageStartEvent(message_id=message_id, role="assistant"),
        *(TextMessageContentEvent(message_id=message_id, delta=piece) for piece in _cut(text, chunks) if piece),
        TextMessageEndEvent(message_id=message_id),
    ]
