"""A pydantic-ai agent over AG-UI with shared state (`StateDeps`) and a tool that sends AG-UI events.

The model is a deterministic `FunctionModel`:

- "plan a, b, c": it calls `make_plan(steps=["a", "b", "c"])`, whose `ToolReturn` carries, as
  pydantic-ai lets a tool do, a `STATE_SNAPSHOT` of the new plan (`{"steps": [{"description",
  "status": "pending"}]}`) and an `ACTIVITY_SNAPSHOT` (`activityType` "plan", id "plan-card",
  content `{"title", "steps"}`);
- "status": it calls `read_plan()`, which records the plan the request's state held (`seen`);
- after a tool return: "Planned" / "Read"; anything else: "ok".

```python
import uvicorn

from tests.agents.plan_agent import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8004)  # POST AG-UI runs to /agent
```
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import ActivitySnapshotEvent, StateSnapshotEvent
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo
from pydantic_ai.ui import StateDeps
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from tests.agents.scripted_model import function_model

__all__ = ["Plan", "create_app"]


class Plan(BaseModel):
    steps: list[dict[str, Any]] = []


def _reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    parts = last.parts if isinstance(last, ModelRequest) else []
    returned = [part for part in parts if isinstance(part, ToolReturnPart)]
    if returned:
        return ModelResponse(parts=[TextPart("Planned" if returned[0].tool_name == "make_plan" else "Read")])
    prompt = next((part.content for part in parts if getattr(part, "part_kind", "") == "user-prompt"), "")
    text = prompt if isinstance(prompt, str) else ""
    if text.startswith("plan "):
        steps = [step.strip() for step in text[5:].split(",")]
        return ModelResponse(parts=[ToolCallPart("make_plan", {"steps": steps}, tool_call_id=f"plan-{len(messages)}")])
    if text == "status":
        return ModelResponse(parts=[ToolCallPart("read_plan", {}, tool_call_id=f"read-{len(messages)}")])
    return ModelResponse(parts=[TextPart("ok")])


def create_app() -> Starlette:
    """The agent at `POST /agent`; the plans `read_plan` saw are `app.state.seen`."""
    seen: list[dict[str, Any]] = []
    agent = Agent(function_model(_reply), deps_type=StateDeps[Plan])

    @agent.tool
    def make_plan(ctx: RunContext[StateDeps[Plan]], steps: list[str]) -> ToolReturn:
        """Make a plan of these steps."""
        ctx.deps.state.steps = [{"description": step, "status": "pending"} for step in steps]
        return ToolReturn(return_value="planned", metadata=[
            StateSnapshotEvent(snapshot=ctx.deps.state.model_dump()),
            ActivitySnapshotEvent(message_id="plan-card", activity_type="plan",
                                  content={"title": "A plan", "steps": len(steps)}),
        ])

    @agent.tool
    def read_plan(ctx: RunContext[StateDeps[Plan]]) -> str:
        """Read the plan."""
        seen.append(ctx.deps.state.model_dump())
        return "read"

    async def endpoint(request: Request) -> Response:
        return await AGUIAdapter.dispatch_request(request, agent=agent, deps=StateDeps(Plan()))

    app = Starlette(routes=[Route("/agent", endpoint, methods=["POST"])])
    app.state.seen = seen
    return app
