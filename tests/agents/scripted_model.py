"""What the test agents built on pydantic-ai share: a `FunctionModel` from one reply function,
and the AG-UI endpoint that runs an agent and records each request body.

A reply is one `ModelResponse` of one part, a text or a tool call; streamed, the text is one
delta and the call one `DeltaToolCall` with its whole arguments.

```python
from pydantic_ai import Agent
from pydantic_ai.messages import ModelResponse, TextPart

from tests.agents.scripted_model import agui_endpoint, function_model

bodies = []
endpoint = agui_endpoint(Agent(function_model(lambda messages, info: ModelResponse(parts=[TextPart("ok")]))),
                         bodies.append)
```
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.requests import Request
from starlette.responses import Response

__all__ = ["Reply", "agui_endpoint", "function_model"]

Reply = Callable[[list[ModelMessage], AgentInfo], ModelResponse]


def function_model(reply: Reply) -> FunctionModel:
    """A `FunctionModel` answering with `reply`, called once per model request, streamed or not."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        [part] = reply(messages, info).parts
        if isinstance(part, TextPart):
            yield part.content
        else:
            assert isinstance(part, ToolCallPart)
            yield {0: DeltaToolCall(name=part.tool_name, json_args=json.dumps(part.args),
                                    tool_call_id=part.tool_call_id)}

    return FunctionModel(reply, stream_function=stream)


def agui_endpoint(agent: Agent[Any, Any], on_body: Callable[[dict[str, Any]], None] | None = None) -> Any:
    """A Starlette endpoint running `agent` over AG-UI; `on_body` gets each request's JSON body."""

    async def endpoint(request: Request) -> Response:
        if on_body is not None:
            try:
                body = await request.json()  # cached on the request: the adapter reads it again
            except ValueError:
                body = None
            if isinstance(body, dict):
                on_body(body)
        return await AGUIAdapter.dispatch_request(request, agent=agent)

    return endpoint
