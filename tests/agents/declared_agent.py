"""A pydantic-ai agent over AG-UI that declares its client tools itself (an `ExternalToolset`).

The agent's contract names `lookup_stock`, `confirm_order` and `audit_log`; their results are
produced outside the agent run, so the agent has `DeferredToolRequests` among its output types:
a run that calls one ends with the call in `outcome.pendingToolCallIds`, and the next request's
tool message carries the result. A deterministic `FunctionModel` decides:

- a user message with "confirm" calls `confirm_order(sku="A1")`, with "audit" calls
  `audit_log(entry=...)`, anything else calls `lookup_stock(sku="A1")`;
- once a tool result is in the history it answers "Answer: <the result's content>".

`create_app()` serves it at `/agent`; `declared_endpoint()` is the endpoint alone.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets.external import ExternalToolset
from starlette.applications import Starlette
from starlette.routing import Route

from tests.agents.scripted_model import agui_endpoint, function_model

__all__ = ["DECLARED_TOOLS", "build_declared_agent", "create_app", "declared_endpoint"]


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties)}


DECLARED_TOOLS = [
    ToolDefinition(name="lookup_stock", description="Look up the stock of a product.",
                   parameters_json_schema=_object(sku={"type": "string"})),
    ToolDefinition(name="confirm_order", description="Ask the user to confirm an order.",
                   parameters_json_schema=_object(sku={"type": "string"})),
    ToolDefinition(name="audit_log", description="Write an audit entry (no page serves it).",
                   parameters_json_schema=_object(entry={"type": "string"})),
]


def _respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    last = messages[-1]
    if isinstance(last, ModelRequest):
        for part in last.parts:
            if isinstance(part, ToolReturnPart):
                return ModelResponse(parts=[TextPart(f"Answer: {part.model_response_str()}")])
    prompt = ""
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    prompt = part.content
    if "confirm" in prompt:
        call = ToolCallPart("confirm_order", {"sku": "A1"}, tool_call_id=f"call-confirm-{len(messages)}")
    elif "audit" in prompt:
        call = ToolCallPart("audit_log", {"entry": prompt}, tool_call_id=f"call-audit-{len(messages)}")
    else:
        call = ToolCallPart("lookup_stock", {"sku": "A1"}, tool_call_id=f"call-stock-{len(messages)}")
    return ModelResponse(parts=[call])


def build_declared_agent() -> Agent[None, str | DeferredToolRequests]:
    """The agent: a `FunctionModel`, the `ExternalToolset` of `DECLARED_TOOLS`, deferred output."""
    return Agent(function_model(_respond), output_type=[str, DeferredToolRequests],
                 toolsets=[ExternalToolset(DECLARED_TOOLS)])


def declared_endpoint() -> Any:
    """A Starlette endpoint running the agent over AG-UI."""
    return agui_endpoint(build_declared_agent())


def create_app() -> Starlette:
    """The agent at `/agent`."""
    return Starlette(routes=[Route("/agent", declared_endpoint(), methods=["POST"])])
