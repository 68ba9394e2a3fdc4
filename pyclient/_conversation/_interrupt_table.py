"""The interrupts of one thread: each one's status and its single answer, sans-I/O.

An AG-UI 1.0 run may end paused (`RUN_FINISHED.outcome = {"type": "interrupt", ...}`), and it
continues when a request carries one `resume` entry per interrupt. LangGraph's adapter also
speaks an older dialect (a `CUSTOM` `on_interrupt` event, resumed through
`forwardedProps.command.resume`); when a run sends both for one interrupt, they are one,
answered in `resume` only. `Interrupts` is a read-only mapping of id to `InterruptRecord` that
the machine owns as `conversation.interrupts`; every status change is a lookup in
`pyclient._conversation._lifecycle.INTERRUPT_TRANSITIONS`. Exactly once: an interrupt is
answered once, its answer sent in one request (`sent`), and an expired one never resumed. The
machine never reads a clock: `resolve` and `expire_due` take the time.

```python
from datetime import datetime, timezone
from pyclient._conversation._interrupt_table import Interrupts

interrupts = Interrupts("t1", changed=lambda change: None)
[record] = interrupts.finish_run("r1", {"type": "interrupt", "interrupts": [
    {"id": "i1", "reason": "input_required", "message": "Which colour?",
     "responseSchema": {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}}]})
interrupts.resolve("i1", {"colour": "blue"}, now=datetime.now(timezone.utc))
print(record.status, interrupts.resume_entries())
# resolved [{'interruptId': 'i1', 'status': 'resolved', 'payload': {'colour': 'blue'}}]
```
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from .._base._errors import InterruptError
from .._base._json import loads
from .._tools._json_schema import SchemaLimitError, schema_errors
from ._lifecycle import InterruptEvent, InterruptStatus, next_interrupt_status
from ._records import Change, InterruptRecord
from ._registry import Registry

__all__ = ["CANCELLED_SENTINEL", "LEGACY_EVENT", "Interrupts", "expiry"]

logger = logging.getLogger("pyclient")

LEGACY_EVENT = "on_interrupt"
"""The `CUSTOM` event name of LangGraph's interrupts before AG-UI 1.0."""

CANCELLED_SENTINEL = "__agui_cancelled__"
"""How a cancelled interrupt is told through the legacy channel: ag-ui-langgraph's own
sentinel (`{"__agui_cancelled__": true, "interrupt_id": ...}`), what it hands the graph for a
`"cancelled"` resume entry."""


def _get(item: Any, camel: str, snake: str) -> Any:
    if isinstance(item, Mapping):
        value = item.get(camel)
        return item.get(snake) if value is None else value
    return getattr(item, snake, None)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _object(value: Any) -> dict[str, Any] | None:
    if isinstance(value, Mapping):
        return dict(value)
    if hasattr(value, "model_dump"):
        dumped = value.model_dump(mode="json", by_alias=True)
        return dumped if isinstance(dumped, dict) else None
    return None


def expiry(expires_at: str | None) -> datetime | None:
    """When an `expiresAt` (ISO 8601) passes, or None: absent, or not a date (never expires,
    as the AG-UI schema says of a value a consumer cannot parse)."""
    if not expires_at:
        return None
    try:
        moment = datetime.fromisoformat(expires_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


class Interrupts(Registry[InterruptRecord]):
    """Every interrupt of one thread by id, in the order the runs raised them.

    Args:
        thread_id: names the thread in error messages.
        changed: receives a `Change("interrupt", id)` for every interrupt that appears or changes.
    """

    noun, waiting_word, hint = "interrupt", "open", "Use one from `thread.interrupts`."

    def __init__(self, thread_id: str, changed: Callable[[Change], None]) -> None:
        super().__init__(thread_id, changed)
        self._run: dict[str, InterruptRecord] = {}  # the legacy events of the run in flight

    # -- reading ---------------------------------------------------------------------------

    def open(self) -> list[InterruptRecord]:
        """The interrupts waiting for an answer, oldest first."""
        return [record for record in self.values() if record.status is InterruptStatus.OPEN]

    def unsent(self) -> list[InterruptRecord]:
        """The answered interrupts whose answer has not gone out yet."""
        return [record for record in self.values()
                if not record.sent and record.status in (InterruptStatus.RESOLVED, InterruptStatus.CANCELLED)]

    def for_call(self, tool_call_id: str) -> InterruptRecord | None:
        """The latest interrupt that names this tool call (a server tool's approval), or None."""
        found = None
        for record in self.values():
            if record.tool_call_id == tool_call_id:
                found = record
        return found

    def waiting(self) -> list[InterruptRecord]:
        """The open interrupts: what a wrong id's message lists."""
        return self.open()

    def get_interrupt(self, interrupt_id: str) -> InterruptRecord:
        """The interrupt with this id (`find`; the name `Thread` uses).

        Raises:
            LocalProtocolError: no interrupt has this id (the message lists the open ones).
        """
        return self.find(interrupt_id)

    # -- a run ------------------------------------------------------------------------------

    def begin_run(self) -> None:
        """A request went out: the legacy events of the next run start afresh."""
        self._run = {}

    def legacy_event(self, value: Any, raw_event: Any, run_id: str) -> None:
        """LangGraph's `CUSTOM` `on_interrupt` event of the run in flight (`value`: the JSON text
        of what the node passed to `interrupt()`; `raw_event.id`: the interrupt's id).

        Mapped as ag-ui-langgraph maps it for the 1.0 outcome: a dict's `message`, `reason`,
        `toolCallId`, `responseSchema`, `expiresAt`; a plain string is the message.
        """
        raw: Any = value
        if isinstance(value, str):
            try:
                raw = loads(value)
            except ValueError:  # not JSON, or past the parser's limits (JSONLimitError): the text
                raw = value
        interrupt_id = _get(raw_event, "id", "id")
        if not isinstance(interrupt_id, str) or not interrupt_id:
            interrupt_id = f"{run_id}:{len(self._run)}"  # no id to match a 1.0 outcome: one per event
        fields = raw if isinstance(raw, Mapping) else {}
        record = self.get(interrupt_id)
        if record is None or record.sent:
            record = InterruptRecord(
                interrupt_id, _text(fields.get("reason")) or "langgraph:interrupt",
                message=raw if isinstance(raw, str) else _text(fields.get("message")),
                tool_call_id=_text(_get(fields, "toolCallId", "tool_call_id")),
                response_schema=_object(_get(fields, "responseSchema", "response_schema")),
                expires_at=_text(_get(fields, "expiresAt", "expires_at")),
                metadata={"langgraph": {"raw": raw}}, run_id=run_id,
            )
        record.legacy = True
        self._run[interrupt_id] = record

    def finish_run(self, run_id: str, outcome: Any) -> list[InterruptRecord]:
        """The run ended (`outcome`: `RUN_FINISHED.outcome`, a model or raw JSON): the interrupts
        it raised, opened; those the outcome names are answered in `resume[]`, legacy-only
        ones in `forwardedProps.command.resume`. A malformed interrupt (no id) is logged and left out."""
        raised: dict[str, InterruptRecord] = dict(self._run)
        self._run = {}
        if _get(outcome, "type", "type") == "interrupt":
            items = _get(outcome, "interrupts", "interrupts")
            for item in items if isinstance(items, (list, tuple)) else ():
                record = self._from_outcome(item, run_id, raised)
                if record is not None:
                    raised[record.id] = record
        for record in raised.values():
            if self.get(record.id) is not record:
                self.put(record, last=True)  # an id a later run used again: a new interrupt, last
            self.changed(Change("interrupt", record.id))
        return list(raised.values())

    def _from_outcome(self, item: Any, run_id: str, legacy: Mapping[str, InterruptRecord]) -> InterruptRecord | None:
        interrupt_id = _get(item, "id", "id")
        if not isinstance(interrupt_id, str) or not interrupt_id:
            logger.warning("pyclient: RUN_FINISHED.outcome has an interrupt without an id (%.100r): left out", item)
            return None
        record = legacy.get(interrupt_id)
        reason = _text(_get(item, "reason", "reason")) or "interrupt"
        message = _text(_get(item, "message", "message"))
        tool_call_id = _text(_get(item, "toolCallId", "tool_call_id"))
        response_schema = _object(_get(item, "responseSchema", "response_schema"))
        expires_at = _text(_get(item, "expiresAt", "expires_at"))
        metadata = _object(_get(item, "metadata", "metadata"))
        subagent_run_id = _text(_get(item, "subagentRunId", "subagent_run_id"))
        if record is None:
            record = InterruptRecord(interrupt_id, reason, message=message, tool_call_id=tool_call_id,
                                     response_schema=response_schema, expires_at=expires_at, metadata=metadata,
                                     subagent_run_id=subagent_run_id, run_id=run_id)
        else:  # the 1.0 form of a legacy event: one interrupt, its fields from the outcome where it has them
            record.reason = reason
            record.message = message or record.message
            record.tool_call_id = tool_call_id or record.tool_call_id
            record.response_schema = response_schema or record.response_schema
            record.expires_at = expires_at or record.expires_at
            record.metadata = metadata or record.metadata
            record.subagent_run_id = subagent_run_id or record.subagent_run_id
        record.outcome = True
        return record

    # -- answers ----------------------------------------------------------------------------

    def move(self, record: InterruptRecord, event: InterruptEvent, note: str = "") -> None:
        """Apply an interrupt event through the table (`next_interrupt_status`)."""
        record.status = next_interrupt_status(record.status, event, interrupt=repr(record.id))
        record.note = note
        self.changed(Change("interrupt", record.id))

    def resolve(self, interrupt_id: str, payload: Any, *, now: datetime) -> InterruptRecord:
        """Answer an open interrupt with `payload`, checked against its `response_schema` first.

        Raises:
            InterruptError: the payload does not fit the schema, or the schema takes more than
                `MAX_SCHEMA_STEPS` to check it against (nothing changes); or the interrupt
                expired (it is marked expired).
            LocalProtocolError: no such interrupt, or it has its answer.
        """
        record = self.find(interrupt_id)
        if record.status is InterruptStatus.OPEN and self._expired(record, now):
            raise InterruptError(f"Interrupt {record.id!r} expired at {record.expires_at}: it can no longer be "
                                 "answered, and the agent is not resumed with it.", [])
        if record.status is InterruptStatus.OPEN:
            try:
                errors = schema_errors(record.response_schema, payload)
            except SchemaLimitError as exc:
                raise InterruptError(
                    f"Interrupt {record.id!r} cannot be answered here: {exc}. Nothing was sent. The agent's "
                    "schema is at fault: cancel the interrupt (or send a new message), and tell the agent's "
                    "developers.", [str(exc)]) from None
            if errors:
                raise InterruptError(
                    f"The answer to interrupt {record.id!r} does not fit its response schema: "
                    + "; ".join(errors) + ". Nothing was sent; fix the answer and resolve it again.", errors)
        self.move(record, InterruptEvent.RESOLVE)
        record.payload = payload
        return record

    def cancel(self, interrupt_id: str, reason: str | None = None) -> InterruptRecord | None:
        """Abandon an open interrupt: the agent is told `"cancelled"`. None when it already had its answer.

        Raises:
            LocalProtocolError: no interrupt has this id.
        """
        record = self.find(interrupt_id)
        if record.done:
            return None
        self.move(record, InterruptEvent.CANCEL, reason or "")
        return record

    def cancel_open(self, reason: str) -> list[InterruptRecord]:
        """Cancel every open interrupt (a new user message, a stop, a close); returns them."""
        cancelled = self.open()
        for record in cancelled:
            self.move(record, InterruptEvent.CANCEL, reason)
        return cancelled

    def _expired(self, record: InterruptRecord, now: datetime) -> bool:
        moment = expiry(record.expires_at)
        if moment is None or moment > now:
            return False
        self.move(record, InterruptEvent.EXPIRE, f"expired at {record.expires_at}")
        return True

    def expire_due(self, now: datetime) -> list[InterruptRecord]:
        """Expire every open interrupt whose `expiresAt` has passed; returns them."""
        return [record for record in self.open() if self._expired(record, now)]

    def next_expiry(self) -> datetime | None:
        """When the next open interrupt expires, or None."""
        moments = [m for m in (expiry(r.expires_at) for r in self.open()) if m is not None]
        return min(moments) if moments else None

    # -- the resume request ------------------------------------------------------------------

    def resume_entries(self) -> list[dict[str, Any]] | None:
        """The `resume` entries of the next request: one per answered interrupt not sent yet,
        when any of them came in a 1.0 outcome (then all go here: never both channels at once)."""
        unsent = self.unsent()
        if not any(record.outcome for record in unsent):
            return None
        entries = []
        for record in unsent:
            entry: dict[str, Any] = {"interruptId": record.id, "status": record.status.value}
            if record.status is InterruptStatus.RESOLVED and record.payload is not None:
                entry["payload"] = record.payload
            entries.append(entry)
        return entries

    def legacy_resume(self) -> tuple[bool, Any]:
        """`(True, value)` when the next request resumes through LangGraph's legacy
        `forwardedProps.command.resume`: every answered interrupt came only as `on_interrupt`
        events. The value is one interrupt's payload (or the cancelled sentinel), or, for several,
        a map of interrupt id to each one's (LangGraph's `Command(resume={id: ...})`)."""
        unsent = self.unsent()
        if not unsent or any(record.outcome for record in unsent):
            return False, None
        values = {record.id: record.payload if record.status is InterruptStatus.RESOLVED
                  else {CANCELLED_SENTINEL: True, "interrupt_id": record.id}
                  for record in unsent}
        if len(values) == 1:
            return True, next(iter(values.values()))
        return True, values

    def mark_sent(self) -> None:
        """A request went out: the answers it carries are sent, never again."""
        for record in self.unsent():
            record.sent = True
