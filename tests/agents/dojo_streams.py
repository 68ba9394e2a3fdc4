"""The AG-UI dojo's "agentic chat with reasoning" and "backend tool rendering" scenarios, as
pydantic-ai's `AGUIAdapter` streams them: recorded in this process, to be replayed into a chat.

`reasoning_chat(ag_ui_version)` is a model that thinks (a `ThinkingPart` with a provider's
signature) and then answers: with the default version the adapter streams `REASONING_*` events
and the signature as a `REASONING_ENCRYPTED_VALUE`; with `"0.1.10"` it streams the `THINKING_*`
events of servers before AG-UI 1.0. `backend_tool_rendering()` is the dojo's weather agent: a
backend tool `get_weather` the server runs itself (`TOOL_CALL_*`, then its `TOOL_CALL_RESULT`),
then the model's answer. Each returns the events between `RUN_STARTED` and `RUN_FINISHED` as
their wire JSON, for `ScriptedAgent.on(...).emit(*events)`.

```python
from tests.agents.dojo_streams import backend_tool_rendering, reasoning_chat

print([event["type"] for event in reasoning_chat()][:3])   # ['REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT']
print(reasoning_chat("0.1.10")[0]["type"])                 # THINKING_START
print([event["type"] for event in backend_tool_rendering()][5])   # TOOL_CALL_RESULT
```
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ag_ui.core import RunAgentInput, UserMessage
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaThinkingPart,
    DeltaToolCall,
    FunctionModel,
)
from pydantic_ai.ui.ag_ui import AGUIAdapter

__all__ = ["HAIKU", "THOUGHT", "WEATHER", "backend_tool_rendering", "reasoning_chat"]

THOUGHT = "The user wants a haiku about autumn. Five, seven, five syllables; a quiet image."
HAIKU = "Autumn moonlight—\na worm digs silently\ninto the chestnut."
WEATHER = {"temperature": 18, "conditions": "light rain", "humidity": 81, "location": "Paris"}


def _events(agent: Agent[Any, Any], text: str, ag_ui_version: str | None) -> list[dict[str, Any]]:
    run_input = RunAgentInput(thread_id="dojo", run_id="run-1", messages=[UserMessage(id="u1", content=text)],
                              tools=[], context=[], state={}, forwarded_props={})
    options = {} if ag_ui_version is None else {"ag_ui_version": ag_ui_version}
    adapter = AGUIAdapter(agent=agent, run_input=run_input, **options)

    async def record() -> list[dict[str, Any]]:
        return [event.model_dump(mode="json", by_alias=True, exclude_none=True)
                async for event in adapter.run_stream()]

    # In a thread of its own: a caller may be inside a running loop (Playwright's sync API).
    with ThreadPoolExecutor(1) as pool:
        events = pool.submit(asyncio.run, record()).result()
    assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED", events
    return events[1:-1]


def reasoning_chat(ag_ui_version: str | None = None) -> list[dict[str, Any]]:
    """The dojo's "agentic chat with reasoning": a thought (with its signature), then a haiku."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        half = len(THOUGHT) // 2
        yield {0: DeltaThinkingPart(content=THOUGHT[:half])}
        yield {0: DeltaThinkingPart(content=THOUGHT[half:], signature="sig-autumn-1")}
        for line in HAIKU.splitlines(keepends=True):
            yield line

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("the chat streams")

    return _events(Agent(FunctionModel(reply, stream_function=stream)), "write a haiku about autumn", ag_ui_version)


def backend_tool_rendering() -> list[dict[str, Any]]:
    """The dojo's "backend tool rendering": the server runs `get_weather`, then answers."""

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
        answered = any(isinstance(part, ToolReturnPart) for message in messages for part in message.parts)
        if not answered:
            yield {0: DeltaToolCall(name="get_weather", json_args=json.dumps({"location": "Paris"}),
                                    tool_call_id="call-weather-1")}
        else:
            yield "It is 18 °C in Paris with light rain."

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise AssertionError("the chat streams")

    agent = Agent(FunctionModel(reply, stream_function=stream))

    @agent.tool_plain
    def get_weather(location: str) -> dict[str, Any]:
        """Get the weather for a location."""
        return {**WEATHER, "location": location}

    return _events(agent, "what is the weather in Paris?", None)

