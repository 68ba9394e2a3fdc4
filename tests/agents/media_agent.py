"""A pydantic-ai agent over AG-UI whose scripted model records the files it receives.

The model is a deterministic `FunctionModel`. For every model call it records, in its
`MediaLog`, what the last request held: a user prompt's text and files, and each tool return's
text and files, files as `(media_type, bytes)`, so a test can compare them with what it sent.
It answers:

- a request holding a tool return: "Tool returned: <the return's items>", each item its text
  or "<media type> <n> bytes" (`describe`);
- a user message "call <tool>" or "call <tool> <JSON arguments>": that client tool (one the
  request offered), call id `call-<tool>-<len(messages)>`;
- a user message with files: "Received: <the files>", each "<media type> <n> bytes";
- anything else: "ok".

```python
import uvicorn

from tests.agents.media_agent import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8003)  # POST AG-UI runs to /agent
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    FileUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from starlette.applications import Starlette
from starlette.routing import Route

from tests.agents.scripted_model import agui_endpoint, function_model

__all__ = ["MediaLog", "Received", "build_media_agent", "create_app", "describe", "media_endpoint"]

@dataclass
class Received:
    """What one model call saw in the last request: the user's items and each tool return's."""

    user: list[Any] = field(default_factory=list)
    """The user prompt's items: text as `str`, files as `(media_type, bytes)` (by URL: `(media_type, url)`)."""
    tool_returns: dict[str, list[Any]] = field(default_factory=dict)
    """Per tool name, the return's items: text as `str`, files as `(media_type, bytes)`."""

    def files(self) -> list[tuple[str, bytes]]:
        """Every file of the user prompt and of the tool returns, in order."""
        items = [*self.user, *(item for items in self.tool_returns.values() for item in items)]
        return [item for item in items if isinstance(item, tuple)]


@dataclass
class MediaLog:
    """What a media app's model saw, for tests to assert on."""

    received: list[Received] = field(default_factory=list)
    """One entry per model call."""
    bodies: list[dict[str, Any]] = field(default_factory=list)
    """Every request body, as parsed JSON."""

    def clear(self) -> None:
        """Forget everything seen so far (a session-wide log, between tests)."""
        self.received.clear()
        self.bodies.clear()


def _items(content: Any) -> list[Any]:
    values = content if isinstance(content, (list, tuple)) else [content]
    items: list[Any] = []
    for value in values:
        if isinstance(value, BinaryContent):
            items.append((value.media_type, bytes(value.data)))
        elif isinstance(value, FileUrl):  # sent by URL: the scripted model never fetches it
            items.append((value.media_type, value.url))
        elif isinstance(value, str):
            items.append(value)
        elif value is not None:
            items.append(json.dumps(value, default=str))
    return items


def describe(items: list[Any]) -> str:
    """Items as the model answers them: texts as they are, files as "<type> <n> bytes"."""
    return ", ".join(item if isinstance(item, str) else f"{item[0]} {len(item[1])} bytes" if isinstance(item[1], bytes)
                     else f"{item[0]} at {item[1]}" for item in items)


def _read(request: ModelRequest) -> Received:
    received = Received()
    for part in request.parts:
        if isinstance(part, UserPromptPart):
            received.user.extend(_items(part.content))
        elif isinstance(part, ToolReturnPart):
            received.tool_returns[part.tool_name] = _items(part.content)
    return received


def _respond(messages: list[ModelMessage], received: Received, offered: set[str]) -> ModelResponse:
    if received.tool_returns:
        said = "; ".join(describe(items) for items in received.tool_returns.values())
        return ModelResponse(parts=[TextPart(f"Tool returned: {said}")])
    texts = [item for item in received.user if isinstance(item, str)]
    words = texts[-1].split(maxsplit=2) if texts else []
    if len(words) >= 2 and words[0] == "call" and words[1] in offered:
        arguments = json.loads(words[2]) if len(words) > 2 else {}
        return ModelResponse(parts=[ToolCallPart(words[1], arguments, tool_call_id=f"call-{words[1]}-{len(messages)}")])
    files = [item for item in received.user if isinstance(item, tuple)]
    if files:
        return ModelResponse(parts=[TextPart(f"Received: {describe(files)}")])
    return ModelResponse(parts=[TextPart("ok")])


def build_media_agent(log: MediaLog) -> Agent[None, str]:
    """The agent: a `FunctionModel` that records into `log` what each call received."""

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        received = _read(last) if isinstance(last, ModelRequest) else Received()
        log.received.append(received)
        return _respond(messages, received, {tool.name for tool in info.function_tools})

    return Agent(function_model(reply))


def media_endpoint(log: MediaLog) -> Any:
    """A Starlette endpoint running the agent over AG-UI, recording every request into `log`."""
    return agui_endpoint(build_media_agent(log), log.bodies.append)


def create_app() -> Starlette:
    """The agent at `POST /agent`; its `MediaLog` is `app.state.log`."""
    log = MediaLog()
    app = Starlette(routes=[Route("/agent", media_endpoint(log), methods=["POST"])])
    app.state.log = log
    return app
