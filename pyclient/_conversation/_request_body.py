"""The JSON body of a run's `RunAgentInput`, written around the history's messages (sans-I/O).

`request_body(history, ...)` is byte for byte `RunAgentInput(...).model_dump_json(by_alias=True)`
without serializing the whole history again: the messages come as the array `History.dump_json`
keeps (each message serialized once, the first time a request carries it), and the fields
around them are serialized by ag-ui's model itself. `run_body` adds a conversation's tools
and its interrupts' answers (`resume[]`, or LangGraph's legacy `command.resume`). A lone UTF-16 surrogate nothing repaired
is replaced with U+FFFD rather than never sending again.

```python
import json
from ag_ui.core import UserMessage
from pyclient._conversation._history import History
from pyclient._conversation._request_body import PROTOCOL_VERSION, request_body

history = History([UserMessage(id="u1", content="hi")])
body = json.loads(request_body(history, thread_id="t1", run_id="r1", tools=[], context=[], forwarded_props=None))
assert body["protocolVersion"] == PROTOCOL_VERSION and body["messages"][0]["content"] == "hi"
```
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticSerializationError

from .._base._errors import LocalProtocolError
from .._base._json import repair_all

if TYPE_CHECKING:  # ag_ui.core is imported on first use: see `pyclient._wire._events.event_adapter`
    from ag_ui.core import Context, Tool

    from .._tools._client_tool import ClientTool
    from ._history import History
    from ._interrupt_table import Interrupts

__all__ = ["PROTOCOL_VERSION", "request_body", "run_body"]

logger = logging.getLogger("pyclient")

PROTOCOL_VERSION = "1.0"
"""Sent as `protocolVersion`: servers (pydantic-ai) only report pending tool calls to 1.0 clients."""

_EMPTY_MESSAGES_END = b'[]}'
_EMPTY_INPUT_START = b'{"threadId":"","runId":"","messages":[]'


def request_body(history: History, *, thread_id: str, run_id: str, tools: Sequence[Tool], context: Sequence[Context],
                 forwarded_props: Any, resume: list[dict[str, Any]] | None = None) -> bytes:
    """The JSON body of the `RunAgentInput` for the next run, without serializing the history again.

    Byte for byte `RunAgentInput(...).model_dump_json(by_alias=True)`: the fields before
    `messages` and those after it are serialized by ag-ui's model itself, as two inputs
    with no messages: one ends `"messages":[]}` (every field after it is unset, so left
    out) and one starts `{"threadId":"","runId":"","messages":[]`. A JSON object is its
    fields' JSON in field order, so `dump_json`'s array between the two is the model's
    dump (`tests/unit/conversation/test_request_body.py` compares them).

    Raises:
        LocalProtocolError: the state, context or forwarded_props is not JSON.
    """
    from ag_ui.core import RunAgentInput

    state = history.state if history.state is not None else {}
    forwarded_props = forwarded_props if forwarded_props is not None else {}
    try:
        head = RunAgentInput(thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION,
                             state=state, messages=[]).model_dump_json(by_alias=True).encode()
        tail = RunAgentInput(thread_id="", run_id="", messages=[], tools=list(tools), context=list(context),
                             forwarded_props=forwarded_props,
                             resume=resume).model_dump_json(by_alias=True).encode()  # type: ignore[arg-type]
        assert head.endswith(_EMPTY_MESSAGES_END) and tail.startswith(_EMPTY_INPUT_START)
        return history.dump_json(head[:-len(_EMPTY_MESSAGES_END)], tail[len(_EMPTY_INPUT_START):])
    except PydanticSerializationError as exc:
        if "surrogates not allowed" not in str(exc):
            raise LocalProtocolError(
                f"Cannot send a run of thread {thread_id!r}: its state, context or "
                f"forwarded_props is not JSON ({exc}). Keep `thread.state` and "
                "`thread.forwarded_props` to dicts, lists, strings, numbers, booleans and None."
            ) from None
    # A lone UTF-16 surrogate from somewhere no repair covers (a server's snapshot, the
    # page's state): replace it everywhere rather than never send again.
    logger.warning("pyclient: lone surrogates in thread %s replaced with U+FFFD", thread_id)
    run_input = RunAgentInput(
        thread_id=thread_id, run_id=run_id, protocol_version=PROTOCOL_VERSION, messages=history.messages(),
        tools=list(tools), state=state, context=list(context), forwarded_props=forwarded_props,
        resume=resume,  # type: ignore[arg-type]
    )
    # model_dump's Python mode encodes nothing, so it cannot fail on them.
    repaired = RunAgentInput.model_validate(repair_all(run_input.model_dump(by_alias=True)))
    return repaired.model_dump_json(by_alias=True).encode()


def run_body(history: History, interrupts: Interrupts, *, thread_id: str, run_id: str, tools: Sequence[ClientTool],
             context: Sequence[Context], forwarded_props: Any) -> bytes:
    """`request_body` for the next run of a conversation, with its tools' AG-UI declarations and
    its interrupts' answers.

    Raises:
        LocalProtocolError: as `request_body`.
    """
    legacy, resume_value = interrupts.legacy_resume()
    if legacy:  # LangGraph's channel before AG-UI 1.0, for this request only
        base = forwarded_props if isinstance(forwarded_props, dict) else {}
        forwarded_props = {**base, "command": {**(base.get("command") or {}), "resume": resume_value}}
    return request_body(
        history, thread_id=thread_id, run_id=run_id, tools=[tool.to_agui_tool() for tool in tools],
        context=context, forwarded_props=forwarded_props,
        # One channel: `resume[]` as soon as one answer came in a 1.0 outcome (ag-ui-langgraph
        # reads a legacy interrupt's answer there too, by its id), else the legacy command.
        resume=interrupts.resume_entries(),
    )
