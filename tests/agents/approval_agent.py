"""A pydantic-ai agent over AG-UI with a backend tool that needs human approval (an AG-UI interrupt).

`delete_account(user)` is registered with `requires_approval=True`, and the agent has
`DeferredToolRequests` among its output types, so a run whose model calls it ends with
`RUN_FINISHED.outcome = {"type": "interrupt", "interrupts": [...]}` (one interrupt per call, id
`"pydantic-ai:<toolCallId>"`-style, see pydantic-ai's `_interrupt.py`). The next request answers it
with `RunAgentInput.resume[]`: `{"interruptId", "status": "resolved", "payload": {"approved": true,
"editedArgs"?: {...}}}` runs the tool (with the edited arguments, if any), `{"approved": false,
"reason"?: ...}` or `"status": "cancelled"` denies it. A deterministic `FunctionModel` decides:

- when the last request holds a denied tool return (or a `RetryPromptPart`) it answers
  "Denied: <the message the model got>";
- when it holds any other tool return it answers "Answer: <the result's content>";
- otherwise a user message with "delete" calls `delete_account(user="bob")` (tool call id
  `call-delete-<len(messages)>`), and anything else answers "ok".

Every app has its own `ApprovalLog` (`app.state.log`): `executed` lists the `user` of each tool run,
`bodies` every request body, `resumes` the raw `resume` array of every request that had one, and
`model_inputs` the parts of the last request each model call saw, as `(part_kind, content)` pairs.
`create_app()` serves the agent at `/agent`; `approval_endpoint(log)` is the endpoint alone.

```python
import uvicorn

from tests.agents.approval_agent import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8002)  # POST AG-UI runs to /agent
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from starlette.applications import Starlette
from starlette.routing import Route

from tests.agents.scripted_model import agui_endpoint, function_model

__all__ = ["ApprovalLog", "approval_endpoint", "build_approval_agent", "create_app"]


@dataclass
class ApprovalLog:
    """What an approval app saw and did, for tests to assert on."""

    executed: list[str] = field(default_factory=list)
    """The `user` argument of every `delete_account` execution, in order."""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, as parsed JSON."""
    resumes: list[list[dict[str, Any]]] = field(default_factory=list)
    """The raw `resume` array of every request that carried a non-empty one."""
    model_inputs: list[list[tuple[str, str]]] = field(default_factory=list)
    """Per model call, the `(part_kind, content)` of each part of the last request."""

    def clear(self) -> None:
        """Forget everything seen so far (a session-wide log, between tests)."""
        self.executed.clear()
        self.bodies.clear()
        self.resumes.clear()
        self.model_inputs.clear()


def _content(part: Any) -> str:
    if isinstance(part, ToolReturnPart):
        return part.model_response_str()
    if isinstance(part, RetryPromptPart):
        return part.content if isinstance(part.content, str) else json.dumps(part.content, default=str)
    content = getattr(part, "content", "")
    return content if isinstance(content, str) else json.dumps(content, default=str)


def _respond(messages: list[ModelMessage]) -> ModelResponse:
    last = messages[-1]
    if isinstance(last, ModelRequest):
        for part in last.parts:
            if isinstance(part, RetryPromptPart) or (isinstance(part, ToolReturnPart) and part.outcome == "denied"):
                return ModelResponse(parts=[TextPart(f"Denied: {_content(part)}")])
        for part in last.parts:
            if isinstance(part, ToolReturnPart):
                return ModelResponse(parts=[TextPart(f"Answer: {_content(part)}")])
        prompts = [p.content for p in last.parts if isinstance(p, UserPromptPart) and isinstance(p.content, str)]
        if prompts and "delete" in prompts[-1]:
            call = ToolCallPart("delete_account", {"user": "bob"}, tool_call_id=f"call-delete-{len(messages)}")
            return ModelResponse(parts=[call])
    return ModelResponse(parts=[TextPart("ok")])


def build_approval_agent(log: ApprovalLog) -> Agent[None, str | DeferredToolRequests]:
    """The agent: a `FunctionModel`, the approval-gated `delete_account` tool recording into `log`."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            log.model_inputs.append([(p.part_kind, _content(p)) for p in last.parts])
        return _respond(messages)

    agent: Agent[None, str | DeferredToolRequests] = Agent(function_model(reply), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def delete_account(user: str) -> str:
        """Delete a user's account (needs the user's approval)."""
        log.executed.append(user)
        return f"deleted {user}"

    return agent


def approval_endpoint(log: ApprovalLog) -> Any:
    """A Starlette endpoint running the agent over AG-UI, recording every request into `log`."""

    def record(body: dict[str, Any]) -> None:
        log.bodies.append(body)
        if body.get("resume"):
            log.resumes.append(body["resume"])

    return agui_endpoint(build_approval_agent(log), record)


def create_app() -> Starlette:
    """The agent at `POST /agent`; its `ApprovalLog` is `app.state.log`."""
    log = ApprovalLog()
    app = Starlette(routes=[Route("/agent", approval_endpoint(log), methods=["POST"])])
    app.state.log = log
    return app
