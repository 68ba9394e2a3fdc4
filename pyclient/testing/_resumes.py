"""Scripted AG-UI interrupts: what a scripted turn pauses its run with, and what a request resumed it with.

A `ScriptedInterrupt` is one interrupt a turn raises (`Turn.interrupt()`, or the approval of
`Turn.server_call(..., requires_approval=True)`): an entry of `RUN_FINISHED.outcome =
{"type": "interrupt", "interrupts": [...]}`, or, `legacy=True`, LangGraph's older `CUSTOM`
`on_interrupt` event before a bare `RUN_FINISHED`. `resumes_of(run, legacy_ids)` reads what a
request answered them with, as `ag_ui.core.ResumeEntry` models either way: its `resume[]`, or
its `forwardedProps.command.resume` (one interrupt's payload, a map of id to payload for
several, ag-ui-langgraph's sentinel for a cancelled one).

```python
from ag_ui.core import RunAgentInput
from pyclient.testing._resumes import ScriptedInterrupt, resumes_of

ask = ScriptedInterrupt(reason="input_required", message="Which colour?")
print(ask.wire("i1"))     # {'id': 'i1', 'reason': 'input_required', 'message': 'Which colour?'}
run = RunAgentInput(thread_id="t", run_id="r2", messages=[], tools=[], context=[], state={},
                    forwarded_props={"command": {"resume": {"colour": "blue"}}})
print(resumes_of(run, ["i1"]))
# [ResumeEntry(interrupt_id='i1', status='resolved', payload={'colour': 'blue'}, metadata=None)]
```
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Union

from ag_ui.core import ResumeEntry, RunAgentInput

__all__ = ["APPROVAL_SCHEMA", "CANCELLED_SENTINEL", "LEGACY_EVENT", "Content", "ScriptedInterrupt",
           "approval_outcome", "describe", "resumes_of"]

Content = Union[str, list[dict[str, Any]]]
"""A tool message's content as the agent sends it: the text, or content parts (their JSON)."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "editedArgs": {"type": "object"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
"""The `responseSchema` of a server tool's approval, as pydantic-ai's AG-UI adapter sends it."""

LEGACY_EVENT = "on_interrupt"
"""The `CUSTOM` event name of LangGraph's interrupts before AG-UI 1.0."""

CANCELLED_SENTINEL = "__agui_cancelled__"
"""How ag-ui-langgraph tells a cancelled interrupt through `forwardedProps.command.resume`."""


@dataclass
class ScriptedInterrupt:
    """One interrupt a scripted turn raises; the fields are `ag_ui.core.Interrupt`'s.

    Attributes:
        interrupt_id: the interrupt's id; None: a fresh one each time the turn answers.
        legacy: sent as LangGraph's `CUSTOM` `on_interrupt` event instead of in the outcome.
        call: for a server tool's approval, the index of its call among the turn's steps.
    """

    reason: str
    message: str | None = None
    response_schema: Mapping[str, Any] | None = None
    tool_call_id: str | None = None
    interrupt_id: str | None = None
    expires_at: str | None = None
    metadata: Mapping[str, Any] | None = None
    legacy: bool = False
    call: int | None = None

    def fields(self, tool_call_id: str | None = None) -> dict[str, Any]:
        """The interrupt's fields under their wire names, the absent ones left out (`id` aside)."""
        values = {"reason": self.reason, "message": self.message, "toolCallId": tool_call_id or self.tool_call_id,
                  "responseSchema": dict(self.response_schema) if self.response_schema is not None else None,
                  "expiresAt": self.expires_at,
                  "metadata": dict(self.metadata) if self.metadata is not None else None}
        return {key: value for key, value in values.items() if value is not None}

    def wire(self, interrupt_id: str, tool_call_id: str | None = None) -> dict[str, Any]:
        """The interrupt as an entry of `RUN_FINISHED.outcome.interrupts`."""
        return {"id": interrupt_id, **self.fields(tool_call_id)}

    def legacy_event(self, interrupt_id: str, tool_call_id: str | None = None) -> dict[str, Any]:
        """The interrupt as ag-ui-langgraph's `CUSTOM` event: `value` the JSON text of what the
        node passed to `interrupt()`, `rawEvent` LangGraph's `Interrupt` (`value`, `id`)."""
        value = self.fields(tool_call_id)
        return {"type": "CUSTOM", "name": LEGACY_EVENT, "value": json.dumps(value),
                "rawEvent": {"value": value, "id": interrupt_id}}


def resumes_of(run: RunAgentInput, legacy_ids: Sequence[str] = ()) -> list[ResumeEntry]:
    """What `run` resumed: its `resume[]` entries, then, when it carries
    `forwardedProps.command.resume` and legacy interrupts are open (`legacy_ids`), one entry
    per legacy interrupt it answers."""
    entries = list(run.resume or ())
    props = run.forwarded_props
    command = props.get("command") if isinstance(props, Mapping) else None
    if not legacy_ids or not isinstance(command, Mapping) or "resume" not in command:
        return entries
    value = command["resume"]
    if len(legacy_ids) == 1:
        answers = {legacy_ids[0]: value}
    elif isinstance(value, Mapping):  # LangGraph's `Command(resume={id: value})`
        answers = {key: value[key] for key in legacy_ids if key in value}
    else:
        answers = {}
    for interrupt_id, answer in answers.items():
        if isinstance(answer, Mapping) and answer.get(CANCELLED_SENTINEL) is True:
            entries.append(ResumeEntry(interrupt_id=interrupt_id, status="cancelled"))
        else:
            entries.append(ResumeEntry(interrupt_id=interrupt_id, status="resolved", payload=answer))
    return entries


def approval_outcome(entry: ResumeEntry | None, result: Content) -> Content:
    """The content of a server tool's `TOOL_CALL_RESULT` once its approval is answered, as
    pydantic-ai words it: `result` when approved; the reason, or "The tool call was denied.",
    when not; "Cancelled by user." when cancelled."""
    if entry is None or entry.status == "cancelled":
        return "Cancelled by user."
    payload = entry.payload if isinstance(entry.payload, Mapping) else {}
    if payload.get("approved") is True:
        return result
    reason = payload.get("reason")
    return reason if isinstance(reason, str) and reason else "The tool call was denied."


def describe(entries: Sequence[ResumeEntry]) -> str:
    """A follow-up's default text for a resume: each entry's status and payload,
    `resolved {"colour": "blue"} | cancelled`."""
    words = []
    for entry in entries:
        if entry.status == "resolved" and entry.payload is not None:
            words.append(f"resolved {json.dumps(entry.payload, ensure_ascii=False)}")
        else:
            words.append(entry.status)
    return " | ".join(words)
