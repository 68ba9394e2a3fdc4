"""A sans-I/O `Conversation` driven as the driver drives it, for the property tests that feed it
generated events (`tests.unit.conversation.agui_streams`) without a transport.

`decoded(events, draw)` turns drawn events into what the SSE decoder hands over, `received(machine,
events)` feeds them as the driver does (what does not decode, or what the machine refuses, fails
the run), and `settle(machine, ...)` steps the machine until the run is over: it serves every
call, lets the test answer what each step waits for, and sends each follow-up.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ag_ui.core import RunFinishedEvent, RunStartedEvent
from hypothesis import strategies as st

from pyclient._base._errors import RemoteProtocolError
from pyclient._conversation._machine import Conversation
from pyclient._conversation._records import (
    Call,
    Failed,
    Idle,
    InterruptRecord,
    RunHandlers,
    RunRequest,
    SendRequest,
    WaitForActions,
)
from pyclient._tools._client_tool import ClientTool
from pyclient._wire._events import decode_event
from tests.unit.conversation.agui_streams import payload


class _Registration:
    """Stands for the registration serving a call (the machine only compares identities)."""


REGISTRATION = _Registration()


def decoded(event_list: list[Any], draw: st.DrawFn) -> list[Any]:
    """Each event as the SSE decoder hands it over (its payload's UTF-8 bytes decoded with
    replacement, then parsed); None for one that does not parse."""
    out = []
    for event in event_list:
        data = payload(draw, event).encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        try:
            out.append(decode_event(data))
        except RemoteProtocolError:
            out.append(None)  # the driver fails the run here
    return out


def received(machine: Conversation, events: Iterable[Any]) -> bool:
    """Feed `events` to `machine` as the driver does: a None (what did not decode) or an event it
    refuses (a `STATE_DELTA` that does not apply) fails the run, and what follows is not read.
    True when every event was received (the stream is then the caller's to end)."""
    for event in events:
        if event is None:
            machine.fail(RemoteProtocolError("not an AG-UI event"))
            return False
        try:
            machine.receive(event)
        except RemoteProtocolError as exc:
            machine.fail(exc)
            return False
    return True


def settle(machine: Conversation, tools: Sequence[ClientTool], start: Callable[[], RunRequest], *,
           run: Callable[[Call], None], pending: Callable[[Call], None],
           interrupt: Callable[[InterruptRecord], None], turns: int = 100) -> None:
    """Step `machine` until its run is idle or failed: serve every call that waits for a tool
    (each of an advertised tool), answer each call to run (`run`), each call pending and each
    open interrupt when the run waits for them (`pending`, `interrupt`), and send each follow-up
    (`start()`), its run finished at once. Fails if it has not settled after `turns` steps."""
    by_name = {tool.name: tool for tool in tools}
    for _ in range(turns):
        for call in machine.calls.unavailable():
            tool = by_name.get(call.name)
            assert tool is not None, f"an unadvertised tool's call waits to run: {call!r}"
            machine.calls.serve(call.id, tool, REGISTRATION)  # type: ignore[arg-type]
        step = machine.next_step()
        if isinstance(step, (Idle, Failed)):
            return
        if isinstance(step, RunHandlers):
            for call in step.calls:
                run(call)
        elif isinstance(step, WaitForActions):
            for call in machine.pending():
                pending(call)
            for record in machine.interrupts.open():
                interrupt(record)
        elif isinstance(step, SendRequest):
            request = start()
            machine.receive(RunStartedEvent(thread_id=machine.thread_id, run_id=request.run_id))
            machine.receive(RunFinishedEvent(thread_id=machine.thread_id, run_id=request.run_id))
            machine.end_stream()
    raise AssertionError("the machine never settled")
