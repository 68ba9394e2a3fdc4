"""The scripted AG-UI agent: each request to the turn that answers it, and what the page sent back, recorded.

`ScriptedAgent` holds a script of turns (`pyclient.testing._script.Turn`, one per `on(match)`)
and answers each request body with a `Response`: a user message gets the first response of the
first turn that matches it; the request that carries that turn's tool results, or resumes its
interrupts, gets the turn's follow-up. It records every request (`requests`) and every
interrupt's answer (`resumes`), and serves itself over HTTP (`serve()`) or in this process
(`transport()`).

```python
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("delete bob").server_call("delete_account", user="bob", result="deleted bob",
                                   call_id="c1", requires_approval=True).then_say("Done")
request = {"threadId": "t", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "delete bob"}],
           "tools": [], "context": [], "state": {}, "forwardedProps": {}}
[interrupt] = agent.respond(request).events[-1]["outcome"]["interrupts"]
print(interrupt["id"], interrupt["message"])         # int-c1 Approve delete_account({"user":"bob"})?
resume = [{"interruptId": "int-c1", "status": "resolved", "payload": {"approved": True}}]
events = agent.respond({**request, "runId": "r2", "resume": resume}).events
print(events[1].content, events[3].delta)            # deleted bob Done
print(agent.wait_for_resume("int-c1").payload)       # {'approved': True}
```
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ag_ui.core import AssistantMessage, ResumeEntry, RunAgentInput, ToolMessage

from .. import Agent, ClientTool, MockTransport, Thread
from .._tools._content import split_parts
from ._response import Event, Response, in_process
from ._resumes import resumes_of
from ._script import Match, Turn
from ._server import ServerThread, agent_app

__all__ = ["ScriptedAgent"]


class ScriptedAgent:
    """A deterministic AG-UI agent driven by a script; `pyclient.testing` serves it over HTTP.

    Attributes:
        requests: every `RunAgentInput` received, in order (tools advertised, messages sent
            back: `requests[-1].tools`, the tool messages of `requests[-1].messages`).
        resumes: every interrupt answer received, in order, as `ag_ui.core.ResumeEntry`
            (`interrupt_id`, `status` "resolved" or "cancelled", `payload`): the entries of
            each request's `resume`, and the legacy `forwardedProps.command.resume` of a
            `interrupt(..., legacy=True)` turn read as the same entries. A page that resumes an
            interrupt twice shows here twice.
    """

    def __init__(self) -> None:
        self._turns: list[Turn] = []
        self._default = Turn(None).say("(no scripted answer)")
        self._lock = threading.Lock()
        self._answered: dict[str, Turn] = {}   # user message id -> the turn that answered it
        self._interrupted: dict[str, Turn] = {}  # interrupt id -> the turn that raised it
        self._legacy: dict[str, Turn] = {}       # thread id -> the turn whose legacy interrupts are open
        self.requests: list[RunAgentInput] = []
        self.resumes: list[ResumeEntry] = []
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

    def resume_of(self, interrupt_id: str | None = None) -> ResumeEntry | None:
        """The last resume entry received for `interrupt_id` (None: for any interrupt), or None."""
        with self._lock:
            entries = list(self.resumes)
        return next((entry for entry in reversed(entries)
                     if interrupt_id is None or entry.interrupt_id == interrupt_id), None)

    def wait_for_resume(self, interrupt_id: str | None = None, timeout_s: float = 30.0) -> ResumeEntry:
        """Wait until the page has resumed the interrupt `interrupt_id` (None: any interrupt);
        return the resume entry (the last one received, as `resume_of()`).

        Polls `resumes` (the answer reaches the agent in the request that resumes the run).

        Raises:
            TimeoutError: no such resume arrived within `timeout_s`; the message names the
                interrupts that were resumed and those raised.
        """
        deadline = time.monotonic() + timeout_s
        while (entry := self.resume_of(interrupt_id)) is None:
            if time.monotonic() > deadline:
                what = "any interrupt" if interrupt_id is None else f"interrupt {interrupt_id!r}"
                resumed = sorted({entry.interrupt_id for entry in list(self.resumes)})
                raised = sorted(self._interrupted)
                raise TimeoutError(
                    f"No resume of {what} reached the scripted agent within {timeout_s:g} s "
                    f"({len(self.requests)} requests; resumed: {resumed}; raised: {raised}). Check that "
                    "the script interrupts and that the page answers every open interrupt "
                    "(`interrupt.resolve(payload)` or `cancel()`)."
                )
            time.sleep(0.05)
        return entry

    def clear(self) -> None:
        """Forget the recorded requests and resumes (the script stays)."""
        with self._lock:
            self.requests.clear()
            self.resumes.clear()

    def respond(self, body: Mapping[str, Any] | RunAgentInput) -> Response:
        """The response to one request body (recorded in `requests`, its interrupt answers in `resumes`).

        A new user message gets the first response of the first turn that matches it; a request
        that carries tool results, or resumes interrupts, gets the follow-up of the turn that
        made the calls or raised the interrupts (a new user message that cancels open
        interrupts is a new user message).
        """
        run = body if isinstance(body, RunAgentInput) else RunAgentInput.model_validate(body)
        with self._lock:
            self.requests.append(run)
        users = [m for m in run.messages if m.role == "user"]
        said = users[-1] if users else None
        answered = self._answered.get(said.id) if said is not None else None
        legacy = self._legacy.get(run.thread_id)
        entries = resumes_of(run, legacy.legacy_ids if legacy is not None else ())
        if entries:
            with self._lock:
                self.resumes.extend(entries)
            if len(entries) > len(run.resume or ()):  # the legacy interrupts are answered
                del self._legacy[run.thread_id]
        if entries and (said is None or answered is not None):
            # A resume (not a new user message that cancels what was open): the follow-up of
            # the turn that raised the interrupts.
            raised = next((self._interrupted[e.interrupt_id] for e in entries if e.interrupt_id in self._interrupted),
                          None)
            return self._follow_up(raised or legacy or answered or self._turn_for(said), run, said)
        if run.messages and run.messages[-1].role == "tool":
            return self._follow_up(answered or self._turn_for(said), run, said)
        return self._first(self._turn_for(said), run, said)

    def _follow_up(self, turn: Turn, run: RunAgentInput, said: Any) -> Response:
        # The follow-up goes to the turn that answered its user message, or to the turn that
        # turn's `then()` made, which answers the next follow-up in its turn.
        if turn.next_turn is None:
            return turn.follow_up(run)
        return self._first(turn.next_turn, run, said, before=turn.resume_results(run))

    def _first(self, turn: Turn, run: RunAgentInput, said: Any, before: list[Event] | None = None) -> Response:
        turn.matched += 1
        if said is not None:
            self._answered[said.id] = turn
        response = turn.first(run, before=before or ())
        for interrupt_id in turn.interrupt_ids:
            self._interrupted[interrupt_id] = turn
        if turn.legacy_ids:
            self._legacy[run.thread_id] = turn
        return response

    def _turn_for(self, user: Any) -> Turn:
        said = split_parts(user.content)[0] if user is not None else ""  # with files: its text parts
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
