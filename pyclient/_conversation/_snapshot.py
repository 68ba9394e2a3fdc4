"""The saved form of a thread: a versioned pydantic model that a store keeps as JSON.

A thread kept in a store (`agent.thread(..., store=...)`) is written as a `Snapshot` at every
transition that matters and read back after a reload. The model is the one place that says
what is saved and how old saves are read: `version` names the format, and `Snapshot.load`
refuses a version it cannot read with an error that says what to do. Version 1 is what
pyclient has written since threads could be saved (`tests/unit/conversation/snapshots/` and `tests/unit/driver/snapshots/` hold such saves).
What a restored call becomes is not decided here: the machine applies the restore tables of
`pyclient._conversation._lifecycle`. Building the models imports pydantic's model machinery,
which is slow in Pyodide, so the machine imports this module only to save or restore.

```python
from pyclient._conversation._snapshot import Snapshot

data = {"version": 1, "thread_id": "t1", "run_state": "IDLE", "messages": [
    {"id": "u1", "role": "user", "content": "hi"}]}
snapshot = Snapshot.load(data)
print(snapshot.thread_id, snapshot.run_state, len(snapshot.messages))   # t1 IDLE 1
print(snapshot.dump()["version"])                                       # 1
```
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import PydanticSerializationError

from .._base._errors import LocalProtocolError
from .._base._json import repair_all
from .._tools._client_tool import ClientTool
from .._tools._content import keep_within, split_parts
from .._tools._results import ToolResult
from ._entries import as_message
from ._history import History
from ._lifecycle import CallStatus, InterruptStatus, RunState
from ._records import Call, InterruptRecord
from ._subagents import Subagents

__all__ = ["SNAPSHOT_VERSION", "SavedCall", "SavedFork", "SavedInterrupt", "SavedResult", "Snapshot"]

SNAPSHOT_VERSION: Literal[1] = 1
"""The `version` this pyclient writes and reads."""


class _Saved(BaseModel):
    # Keys a later pyclient adds are ignored by this one rather than refused.
    model_config = ConfigDict(extra="ignore")


class SavedResult(_Saved):
    """A call's answer: the tool message's text, and the error when it failed. Its files are
    saved once, as the parts of the history's tool message (`Snapshot.saved_calls`)."""

    content: str = ""
    error: str | None = None


class SavedCall(_Saved):
    """One tool call as saved: its status, its tool by name, and its answer.

    Attributes:
        id, name: the `toolCallId` and the tool the model called.
        status: its `CallStatus` when it was saved.
        tool: the name of the tool that answers it (None: a server-side call).
        idempotent: that tool was `idempotent=True` (used when the page no longer has it).
        execution: how many times its handler was started.
        sent: its answer went out in a request.
        edited: the arguments the user approved in place of the model's (JSON text).
        result: its answer, once it has one.
    """

    id: str
    name: str
    status: CallStatus
    tool: str | None = None
    idempotent: bool = False
    execution: int = 0
    sent: bool = False
    edited: str | None = None
    result: SavedResult | None = None

    @classmethod
    def of(cls, call: Call) -> SavedCall:
        """The saved form of a machine's call."""
        result = call.result
        return cls.model_construct(
            id=call.id, name=call.name, status=call.status,
            tool=call.tool.name if call.tool is not None else None,
            idempotent=call.tool.idempotent if call.tool is not None else False,
            execution=call.execution, sent=call.sent, edited=call.edited,
            result=None if result is None else SavedResult.model_construct(content=result.content, error=result.error),
        )

    def call(self, tools: Mapping[str, ClientTool]) -> Call:
        """The call in its saved status, with its tool from `tools` when the page has it."""
        call = Call(self.id, self.name)
        call.status = self.status
        call.tool = tools.get(self.tool or self.name)
        call.execution = self.execution
        call.sent = self.sent
        call.edited = self.edited
        if self.result is not None:
            call.result = ToolResult(content=self.result.content, error=self.result.error)
        return call

    def is_idempotent(self, tool: ClientTool | None) -> bool:
        """Whether the call may run again by itself: its tool's word, or the saved one."""
        return tool.idempotent if tool is not None else self.idempotent


class SavedInterrupt(_Saved):
    """One AG-UI interrupt as saved: what the server sent, its status, and its answer.

    Attributes:
        id, reason, message, tool_call_id, response_schema, expires_at, metadata,
            subagent_run_id: as the server sent them.
        status: its `InterruptStatus` when it was saved.
        run_id: the run that raised it.
        legacy, outcome: which channel brought it (`pyclient._conversation._records.InterruptRecord`).
        payload: its answer, once resolved.
        note: why it was cancelled or expired.
        sent: its answer went out: a reload never resumes it again.
    """

    id: str
    reason: str
    message: str | None = None
    tool_call_id: str | None = None
    response_schema: dict[str, Any] | None = None
    expires_at: str | None = None
    metadata: dict[str, Any] | None = None
    subagent_run_id: str | None = None
    status: InterruptStatus = InterruptStatus.OPEN
    run_id: str = ""
    legacy: bool = False
    outcome: bool = False
    payload: Any = None
    note: str = ""
    sent: bool = False

    @classmethod
    def of(cls, record: InterruptRecord) -> SavedInterrupt:
        """The saved form of a machine's interrupt."""
        return cls.model_construct(**{name: getattr(record, name) for name in cls.model_fields})

    def record(self) -> InterruptRecord:
        """The interrupt in its saved status."""
        record = InterruptRecord(self.id, self.reason, message=self.message, tool_call_id=self.tool_call_id,
                                 response_schema=self.response_schema, expires_at=self.expires_at,
                                 metadata=self.metadata, subagent_run_id=self.subagent_run_id, run_id=self.run_id)
        record.status, record.legacy, record.outcome = self.status, self.legacy, self.outcome
        record.payload, record.note, record.sent = self.payload, self.note, self.sent
        return record


class SavedFork(_Saved):
    """One fork of the history (`pyclient._conversation._branches`): the message before it (its id and its
    text), which alternative the history shows, and every alternative as AG-UI JSON (None for
    the shown one, which is in `messages`)."""

    parent: str | None = None
    after: str = ""
    shown: int
    alternatives: list[list[dict[str, Any]] | None]


class Snapshot(_Saved):
    """A thread as a store keeps it; `Conversation.snapshot()` makes one, `restore()` reads one.

    Attributes:
        version: the format (`SNAPSHOT_VERSION`).
        thread_id: the AG-UI `threadId`.
        run_state: the run state when it was saved.
        run_start: how many messages the history had when the last run started.
        messages: the history as AG-UI JSON (camelCase), as sent in requests.
        state: the shared state.
        calls: every call the thread tracks.
        interrupted: the ids of messages whose text a reload cut.
        interrupts: every AG-UI interrupt the thread tracks (added in place: a save without
            them has none).
        subagents: the subagent invocations (`pyclient._conversation._subagents`; added in place too).
        branches: the alternatives a regenerate or an edit put aside (`pyclient._conversation._branches`;
            added in place: a save without them has none).
        feedback: the person's ratings of answers by message id (`pyclient._conversation._feedback`; added
            in place).
    """

    version: Literal[1] = SNAPSHOT_VERSION
    thread_id: str
    run_state: RunState
    run_start: int = 0
    messages: list[dict[str, Any]] = []
    state: Any = None
    calls: list[SavedCall] = []
    interrupted: list[str] = []
    interrupts: list[SavedInterrupt] = []
    subagents: list[dict[str, Any]] = []
    branches: list[SavedFork] = []
    feedback: dict[str, Literal["up", "down"]] = {}

    @classmethod
    def of(cls, *, thread_id: str, run_state: RunState, run_start: int, history: History, calls: Iterable[Call],
           interrupted: Iterable[str], interrupts: Iterable[InterruptRecord] = (),
           file_limit: int | None = None, branches: Iterable[Mapping[str, Any]] = (),
           feedback: Mapping[str, str] | None = None, with_messages: bool = True) -> Snapshot:
        """The snapshot of a machine's parts, built without validating them (they are its own).

        A file over `file_limit` bytes, in a message (a call's answer included), is kept as a
        text part that names it (`pyclient._tools._content.keep_within`); None keeps every file.
        `with_messages=False` leaves the messages out: the head a record carries (`pyclient._driver._journal`).
        """
        try:
            # From the JSON the requests keep (parsed in C) rather than ag-ui's serializer, which
            # runs Python code per model: a save costs little more than the store's own write.
            messages = json.loads(history.saved_json()) if with_messages else []
        except PydanticSerializationError:  # a lone surrogate: Python mode writes it as it is
            messages = [m.model_dump(mode="json", by_alias=True) for m in history.messages()]
        if file_limit is not None:
            for message in messages:
                if isinstance(message.get("content"), list):
                    message["content"] = keep_within(message["content"], file_limit)
        return cls.model_construct(
            thread_id=thread_id, run_state=run_state, run_start=run_start, messages=messages, state=history.state,
            calls=[SavedCall.of(call) for call in calls], interrupted=list(interrupted),
            interrupts=[SavedInterrupt.of(record) for record in interrupts], subagents=history.subagents.saved(),
            branches=[SavedFork.model_construct(**fork) for fork in branches], feedback=dict(feedback or {}),
        )

    @classmethod
    def load(cls, data: object) -> Snapshot:
        """Read what a store returned.

        Raises:
            LocalProtocolError: `data` is not a snapshot, is of a version this pyclient cannot
                read, or is damaged; the message says to delete the saved thread.
        """
        if not isinstance(data, Mapping) or data.get("version") != SNAPSHOT_VERSION:
            version = data.get("version") if isinstance(data, Mapping) else type(data).__name__
            raise LocalProtocolError(
                f"Cannot restore a conversation from snapshot version {version!r}: this pyclient "
                f"reads version {SNAPSHOT_VERSION}. Delete the saved thread (`await store.delete(key)`)."
            )
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise LocalProtocolError(
                f"Cannot restore thread {data.get('thread_id')!r}: its snapshot is damaged "
                f"({exc.error_count()} error(s): {exc.errors()[0]['msg']} at "
                f"{'.'.join(str(p) for p in exc.errors()[0]['loc'])}). Delete the saved thread "
                "(`await store.delete(key)`)."
            ) from None

    def history(self, *, on_call_started: Callable[[str, str], None]) -> History:
        """The saved messages and state as a `History`.

        Raises:
            LocalProtocolError: a saved message is not an AG-UI message.
        """
        try:
            history = History([as_message(m) for m in self.messages], self.state, on_call_started=on_call_started)
            history.subagents = Subagents.from_saved(self.subagents)
            history.freeze()
            return history
        except (TypeError, ValueError, ValidationError) as exc:
            raise LocalProtocolError(
                f"Cannot restore thread {self.thread_id!r}: its snapshot is damaged "
                f"({type(exc).__name__}: {exc}). Delete the saved thread (`await store.delete(key)`)."
            ) from None

    def saved_calls(self, tools: Mapping[str, ClientTool]) -> tuple[list[Call], set[str]]:
        """The saved calls in their saved statuses, and the ids of those that may run again by
        themselves (an idempotent tool's).

        A result's files are saved once, as the parts of the history's tool message: a
        restored call's result takes them from there."""
        calls: list[Call] = []
        idempotent: set[str] = set()
        parts = {m.get("toolCallId"): m["content"] for m in self.messages
                 if m.get("role") == "tool" and isinstance(m.get("content"), list)}
        for saved in self.calls:
            call = saved.call(tools)
            if call.result is not None and call.result.ok and call.id in parts:
                call.result = replace(call.result, media=split_parts(parts[call.id])[1])
            calls.append(call)
            if saved.is_idempotent(call.tool):
                idempotent.add(call.id)
        return calls, idempotent

    def saved_interrupts(self) -> list[InterruptRecord]:
        """The saved interrupts in their saved statuses (an open one waits for its answer again)."""
        return [saved.record() for saved in self.interrupts]

    def dump(self) -> dict[str, Any]:
        """The snapshot as JSON data for a store (`Snapshot.load` reads it back).

        A lone surrogate (half of a UTF-16 pair, which a server's JSON may carry) in a value is
        kept as it is, but one in a dict key cannot be written: then the free-form parts (the
        shared state, the ratings, the subagents, the branches) are saved repaired (U+FFFD),
        as the next request already carries them, rather than not saved at all."""
        try:
            return self.model_dump(mode="json")
        except UnicodeEncodeError:
            repaired = {name: repair_all(getattr(self, name)) for name in ("state", "feedback", "subagents", "branches")}
            return self.model_copy(update=repaired).model_dump(mode="json")
