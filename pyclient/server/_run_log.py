"""What one agent run did, read from the bytes passing through: the tool results its request carried, the events its answer streamed, how it ended.

`pyclient serve` writes one log line per run from this (`RequestLog`): the tool calls the agent
made (those it ran itself, with a `TOOL_CALL_RESULT` in the stream, and those it left for the
page), the results the page sent back, and the outcome: finished, `RUN_ERROR` with its message,
or a stream that ended early. At DEBUG (`pyclient serve -v`) each event is logged too, one line
with its type and a short `excerpt()`. Nothing here keeps a body: the request is read for tool
names only.

```python
from pyclient.server._run_log import RunRecord

run = RunRecord("POST /agent")
run.read_request(b'{"messages": [{"role": "user", "id": "u1", "content": "hi"}]}')
run.feed(b'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\\n\\n')
run.feed(b'data: {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "set_heading"}\\n\\n')
run.feed(b'data: {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}\\n\\n')
print(run.summary())   # finished; tool calls: set_heading (for the page)
```
"""

from __future__ import annotations

import logging

from .._base._json import loads
from .._wire._sse import SSEDecoder
from ._server_log import excerpt, logger

__all__ = ["RunRecord"]

# The field an event's `-v` line shows, by preference: what a reader looks for in each type.
_SHOWN = ("toolCallName", "delta", "content", "message", "stepName", "name", "snapshot", "value", "runId")


class RunRecord:
    """The record of one run: feed it the request body once and the response body as it streams.

    Args:
        label: what the `-v` lines start with, e.g. "POST /agent".
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self.events = 0
        self.calls: dict[str, str] = {}  # toolCallId -> name, in the order they started
        self.ran: set[str] = set()  # toolCallIds with a TOOL_CALL_RESULT in the stream
        self.results_in: list[str] = []  # tool names whose results the request carried
        self.finished = False
        self.interrupts = 0
        self.error: str | None = None
        self._decoder = SSEDecoder()

    def read_request(self, body: bytes) -> None:
        """Note the tool results a follow-up run carries: the tool messages after the last assistant message."""
        try:
            messages = loads(body.decode("utf-8", errors="replace")).get("messages")
        except (ValueError, AttributeError):  # not a JSON object: the endpoint answers 4xx
            return
        if not isinstance(messages, list):
            return
        names: dict[str, str] = {}
        results: list[str] = []
        for message in messages:
            if not isinstance(message, dict):
                continue
            if message.get("role") == "assistant":
                results = []
                for call in message.get("toolCalls") or []:
                    if isinstance(call, dict) and isinstance(call.get("function"), dict):
                        names[str(call.get("id"))] = str(call["function"].get("name"))
            elif message.get("role") == "tool":
                results.append(names.get(str(message.get("toolCallId")), "?"))
        self.results_in = results

    def feed(self, chunk: bytes) -> None:
        """Read the next bytes of the SSE answer."""
        for data in self._decoder.feed_data(chunk):
            self._event(data)

    def _event(self, data: str) -> None:
        try:
            event = loads(data)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            logger.debug("%s event that is not a JSON object: %s", self.label, excerpt(data))
            return
        self.events += 1
        kind = str(event.get("type"))
        if logger.isEnabledFor(logging.DEBUG):
            shown = next((event[key] for key in _SHOWN if key in event), None)
            logger.debug("%s event %s%s", self.label, kind, "" if shown is None else ": " + excerpt(shown))
        if kind == "TOOL_CALL_START":
            self.calls[str(event.get("toolCallId"))] = str(event.get("toolCallName"))
        elif kind == "TOOL_CALL_RESULT":
            self.ran.add(str(event.get("toolCallId")))
        elif kind == "RUN_FINISHED":
            self.finished = True
            outcome = event.get("outcome")
            if isinstance(outcome, dict) and outcome.get("type") == "interrupt":
                self.interrupts = len(outcome.get("interrupts") or [])
        elif kind == "RUN_ERROR":
            self.error = str(event.get("message"))

    def summary(self, *, hung_up: bool = False) -> str:
        """The run's outcome and tool calls, e.g. "finished; tool calls: set_heading (for the page)".

        Args:
            hung_up: the client went away before the stream ended.
        """
        if self.error is not None:
            outcome = f"error: RUN_ERROR {self.error!r}"
        elif self.finished:
            outcome = "finished" + (f", waiting on {self.interrupts} interrupt(s)" if self.interrupts else "")
        elif hung_up:
            outcome = f"the client hung up after {self.events} event(s)"
        else:
            outcome = f"the stream ended after {self.events} event(s) without RUN_FINISHED or RUN_ERROR"
        parts = [outcome]
        if self.calls:
            parts.append("tool calls: " + ", ".join(
                f"{name} ({'ran on the server' if call_id in self.ran else 'for the page'})"
                for call_id, name in self.calls.items()))
        if self.results_in:
            parts.append("results sent by the page: " + ", ".join(self.results_in))
        return "; ".join(parts)
