"""The records the conversation machine keeps and hands its driver: calls, runs, steps, changes.

The machine (`pyclient._conversation._machine.Conversation`) keeps a `Call` per tool call and a
`RunRecord` for the request in flight; `start_run` returns a `RunRequest`; `next_step()`
returns a `Step` (one of `SendRequest`, `RunHandlers`, `WaitForActions`, `Idle` or
`Failed`); `drain()` returns `Change`s for the listeners (`merge_changes`); `run_end` is a
`RunEnd`. All are plain data: the driver reads them, only the machine writes them.

```python
from pyclient._conversation._lifecycle import CallStatus
from pyclient._conversation._records import Call, Idle, RunHandlers

call = Call("c1", "save_note")
assert call.status is CallStatus.STREAMING and not call.done
step = RunHandlers((call,))
print([c.id for c in step.calls], Idle() == Idle())    # ['c1'] True
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Union

from .._base._listeners import ChangeKind
from .._tools._client_tool import ClientTool
from .._tools._results import ToolResult
from ._lifecycle import TERMINAL, CallStatus, InterruptStatus

if TYPE_CHECKING:
    from ag_ui.core import RunAgentInput

    from .._binding._scopes import Registration

__all__ = [
    "Call",
    "Change",
    "Failed",
    "Idle",
    "InterruptRecord",
    "RunEnd",
    "RunEndHow",
    "RunHandlers",
    "RunRecord",
    "RunRequest",
    "SendRequest",
    "Step",
    "WaitForActions",
    "merge_changes",
]


class Call:
    """One tool call as the machine tracks it. Read its attributes; only the machine writes them.

    Attributes:
        id: the `toolCallId`.
        name: the tool name the model called.
        status: its `CallStatus`.
        tool: the `ClientTool` that answers it: the serving registration's, or the advertised
            one while none serves it (None until the run finishes, and for server-side calls).
        registration: the registration serving it now, or None.
        execution: how many times its handler was started; a handler's answer counts only
            if it belongs to the current execution.
        result: its answer once the status is terminal.
        sent: its answer went out in a request (the follow-up, or a later run): it is in the
            history the server saw and is never sent as a new answer again.
        edited: the arguments (JSON text) the user approved in place of the model's, or None.
    """

    __slots__ = ("_result", "approved_for", "edited", "execution", "id", "name", "registration", "sent", "status",
                 "tool")

    def __init__(self, call_id: str, name: str) -> None:
        self.id = call_id
        self.name = name
        self.status = CallStatus.STREAMING
        self.tool: ClientTool | None = None
        self.registration: Registration | None = None
        self.approved_for: ClientTool | None = None
        self.execution = 0
        self._result: ToolResult | str | None = None
        self.sent = False
        self.edited: str | None = None

    # A thread keeps every call's answer: a plain success (text only) is kept as its text, the
    # `ToolResult` built when it is read (a quarter of what a call kept: bench/README.md).
    @property
    def result(self) -> ToolResult | None:
        """Its answer once the status is terminal."""
        kept = self._result
        return ToolResult(content=kept) if isinstance(kept, str) else kept

    @result.setter
    def result(self, result: ToolResult | None) -> None:
        if result is not None and result.error is None and not result.media:
            self._result = result.content
        else:
            self._result = result

    @property
    def done(self) -> bool:
        """True once the call has its answer."""
        return self.status in TERMINAL

    def __repr__(self) -> str:
        return f"<Call {self.id!r} {self.name} {self.status.value}>"


class InterruptRecord:
    """One AG-UI interrupt as the machine tracks it. Read its attributes; only the machine writes them.

    Attributes:
        id, reason, message, tool_call_id, response_schema, expires_at, metadata,
            subagent_run_id: as the server sent them (`ag_ui.core.Interrupt`).
        status: its `InterruptStatus`.
        run_id: the run that ended with it.
        legacy: it came as LangGraph's `CUSTOM` `on_interrupt` event.
        outcome: it came in `RUN_FINISHED.outcome` (AG-UI 1.0): answered in `resume[]`; a
            legacy-only one is answered in `forwardedProps.command.resume`.
        payload: the answer, once resolved.
        note: why it was cancelled or expired, for the person ("" otherwise).
        sent: its answer went out (in the resume request, or the next request): never again.
    """

    __slots__ = ("expires_at", "id", "legacy", "message", "metadata", "note", "outcome", "payload", "reason",
                 "response_schema", "run_id", "sent", "status", "subagent_run_id", "tool_call_id")

    def __init__(self, interrupt_id: str, reason: str, *, message: str | None = None, tool_call_id: str | None = None,
                 response_schema: dict[str, Any] | None = None, expires_at: str | None = None,
                 metadata: dict[str, Any] | None = None, subagent_run_id: str | None = None, run_id: str = "") -> None:
        self.id = interrupt_id
        self.reason = reason
        self.message = message
        self.tool_call_id = tool_call_id
        self.response_schema = response_schema
        self.expires_at = expires_at
        self.metadata = metadata
        self.subagent_run_id = subagent_run_id
        self.run_id = run_id
        self.status = InterruptStatus.OPEN
        self.legacy = False
        self.outcome = False
        self.payload: Any = None
        self.note = ""
        self.sent = False

    @property
    def done(self) -> bool:
        """True once it has its answer (or expired)."""
        return self.status is not InterruptStatus.OPEN

    def __repr__(self) -> str:
        return f"<Interrupt {self.id!r} {self.reason} {self.status.value}>"


RunEndHow = Literal["finished", "stopped", "failed", "closed", "cancelled"]
"""How a turn ended: the server finished it (nothing left to answer), `thread.stop()`, an
error (`thread.error`), `thread.close()`, or the agent cancelled it (`RUN_FINISHED.outcome`
of type `"cancelled"`)."""


@dataclass(frozen=True)
class RunEnd:
    """How the last turn (a `send()`/`run()` and its follow-ups) ended; `thread.run_end`.

    Attributes:
        how: `"finished"`, `"stopped"`, `"failed"`, `"closed"` or `"cancelled"` (by the agent).
        reason: the stop or close reason, the error's text, or why the agent's run ended as it
            did ("Cancelled by the agent", an interrupt that expired); None when finished.
        run_id: the AG-UI `runId` of the turn's last run ("" when none was sent).
    """

    how: RunEndHow
    reason: str | None = None
    run_id: str = ""


@dataclass(frozen=True)
class RunRequest:
    """What `start_run` gives the driver to send: the run's id and the JSON body of its `RunAgentInput`."""

    run_id: str
    body: bytes

    @property
    def input(self) -> RunAgentInput:
        """The `RunAgentInput` the body encodes (parsed from it on each access: tests, logs)."""
        from ag_ui.core import RunAgentInput

        return RunAgentInput.model_validate_json(self.body)


# -- steps: what the driver does next ----------------------------------------------------------


@dataclass(frozen=True)
class SendRequest:
    """Send the next request (`start_run`): a new turn, or a follow-up carrying the calls' answers."""


@dataclass(frozen=True)
class RunHandlers:
    """Start these calls' handlers (each in its own task), then ask again."""

    calls: tuple[Call, ...]


@dataclass(frozen=True)
class WaitForActions:
    """Nothing to do until a pending call is answered, served, approved or cancelled (`machine.pending()`),
    or an open interrupt is resolved, cancelled or expires (`machine.interrupts.open()`)."""


@dataclass(frozen=True)
class Idle:
    """Nothing in flight, nothing pending (or the thread is closed)."""


@dataclass(frozen=True)
class Failed:
    """The last run failed with `error`; `start_run` retries."""

    error: BaseException


Step = Union[SendRequest, RunHandlers, WaitForActions, Idle, Failed]

@dataclass(frozen=True)
class Change:
    """One thing the machine changed, for the driver to publish: `kind` (the listeners'
    vocabulary, `pyclient._base._listeners.ChangeKind`) and what it concerns (a call's id for
    `"action"`, an interrupt's for `"interrupt"`; the driver hands listeners the call's `Action`
    or the `Interrupt`)."""

    kind: ChangeKind
    payload: Any = None


class RunRecord:
    """What the machine keeps of the request in flight (or the last one), reset by `start_run`.

    Attributes:
        run_id: the AG-UI `runId` ("" before the first run).
        start: how many messages the history had when the run started.
        advertised: the tools this request advertised, by name: these may run.
        declared: the server-declared tools this client serves for the agent, by name.
        calls: the calls this request streamed, in order.
        finished: its `RUN_FINISHED` event, once it arrived.
        error: its `RUN_ERROR` event, once it arrived.
        events: how many events it sent.
        text_content: ag-ui's `TextMessageContentEvent` class (the events' fast path).
    """

    __slots__ = ("advertised", "calls", "declared", "error", "events", "finished", "run_id", "start",
                 "text_content")

    def __init__(self, run_id: str = "", start: int = 0, advertised: dict[str, ClientTool] | None = None,
                 declared: dict[str, ClientTool] | None = None, text_content: type | None = None) -> None:
        self.run_id = run_id
        self.start = start
        self.advertised: dict[str, ClientTool] = advertised or {}
        self.declared: dict[str, ClientTool] = declared or {}
        self.calls: list[Call] = []
        self.finished: Any = None
        self.error: Any = None
        self.events = 0
        self.text_content = text_content

    def tool(self, name: str) -> ClientTool | None:
        """The tool that may answer a call to `name` in this run (advertised first), or None."""
        return self.advertised.get(name) or self.declared.get(name)

    def tool_names(self) -> list[str]:
        """Every tool name a call of this run may use, sorted."""
        return sorted({*self.advertised, *self.declared})


def merge_changes(changes: list[Change], status: Any, state: Any) -> list[Change]:
    """`changes` with each kind (each call or interrupt, for `"action"`/`"interrupt"`) once, oldest first; every `"error"`
    kept; a `"status"` or `"state"` change carrying `status` / `state` (the latest values)."""
    if not changes:
        return []  # nothing: the common second call of a publish
    if len(changes) == 1 and changes[0].kind not in ("status", "state"):
        return changes  # one text delta's "messages": nothing to merge or refresh
    seen: set[tuple[str, Any]] = set()
    unique = []
    for change in changes:
        key = (change.kind, change.payload if change.kind in ("action", "interrupt") else None)
        if key not in seen or change.kind == "error":
            seen.add(key)
            unique.append(change)
    return [Change(c.kind, status) if c.kind == "status" else Change(c.kind, state) if c.kind == "state" else c
            for c in unique]
