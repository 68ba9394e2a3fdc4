"""Serves the embedded AG-UI agent: a Starlette endpoint that checks the body, then streams the run (SSE).

The agent is `pyclient.server._demo_model.build_agent(model)` (the deterministic demo model, or a
pydantic-ai model such as "openai:gpt-4o"), run by pydantic-ai's `AGUIAdapter`. Before the run
the endpoint refuses oversized bodies (413), bodies that are not JSON (415) and malformed ones
(4xx, never 500). Each refusal, and the exception behind a `RUN_ERROR` (the provider's: an
unreachable base URL, a refused key), is noted for the request's log line (`RequestLog`); the
page gets the `RUN_ERROR` message only. `pyclient serve` mounts it at `POST /agent`; it needs
the `server` extra (pydantic-ai), so nothing imports this module until a server is built.

```python
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from pyclient.server import agent_endpoint

app = Starlette(routes=[Route("/agent", agent_endpoint(), methods=["POST"])])
print(TestClient(app).post("/agent", content=b"{}").status_code)   # 415
```
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from pydantic import ValidationError
from pydantic_ai import RunContext
from pydantic_ai.capabilities import Hooks
from pydantic_ai.run import AgentRunResult
from pydantic_ai.ui.ag_ui import AGUIAdapter
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ._demo_model import FILE_NAMES, RAW_TOOL_CONTENT, build_agent
from ._request_log import describe_error, note

__all__ = ["agent_endpoint"]


def _error(status: int, detail: str, **extra: Any) -> JSONResponse:
    note(detail)
    return JSONResponse({"detail": detail, **extra}, status_code=status)


def agent_endpoint(
    model: str | None = None, *, max_body_bytes: int = 1_000_000
) -> Callable[[Request], Awaitable[Response]]:
    """A Starlette endpoint `(request) -> Response` running `build_agent(model)` over AG-UI (SSE).

    Before the run it answers: 413 to a body over `max_body_bytes` (by Content-Length, and by the
    bytes actually received); 415 without `Content-Type: application/json`; 422 to invalid JSON,
    a body that is not a `RunAgentInput`, or a tool message whose `toolCallId` no assistant
    message of the history issued (pydantic-ai itself would answer 500 there).
    """
    agent = build_agent(model)
    # pydantic-ai turns a failed run into RUN_ERROR with the exception's message alone; the
    # log line gets the whole chain (the provider's connection error, the URL it tried).
    noted = Hooks[Any](run_error=_note_run_error)
    too_large = f"Request body exceeds the limit of {max_body_bytes} bytes."

    async def endpoint(request: Request) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None:
            try:
                declared_size = int(declared)
            except ValueError:
                return _error(400, "Invalid Content-Length header.")
            if declared_size > max_body_bytes:
                return _error(413, too_large, limit=max_body_bytes)
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != "application/json":
            return _error(415, f"Expected `Content-Type: application/json`, got {media_type or 'no content type'}.")

        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > max_body_bytes:
                return _error(413, too_large, limit=max_body_bytes)
            chunks.append(chunk)
        body = b"".join(chunks)

        try:
            with warnings.catch_warnings():  # pydantic-ai parses again and warns itself
                warnings.simplefilter("ignore")
                run_input = AGUIAdapter.build_run_input(body)
        except ValidationError as e:
            errors = json.loads(e.json(include_input=False))
            response = _error(422, "Malformed AG-UI RunAgentInput body.", errors=errors)
            note("; ".join(f"{'.'.join(map(str, error['loc'])) or 'the body'}: {error['msg']}" for error in errors[:3])
                 + (f"; {len(errors) - 3} more" if len(errors) > 3 else ""))
            return response
        issued: set[str] = set()
        raw_contents: dict[str, str] = {}
        names: list[str | None] = []
        for message in run_input.messages:
            if message.role == "user":
                names = _file_names(message.content)
            if message.role == "assistant":
                issued.update(tc.id for tc in (getattr(message, "tool_calls", None) or []))
            elif message.role == "tool":
                if message.tool_call_id not in issued:
                    return _error(
                        422,
                        f"Tool message for unknown toolCallId {message.tool_call_id!r}: "
                        "no earlier assistant message carries that tool call.",
                    )
                if isinstance(message.content, str):
                    raw_contents[message.tool_call_id] = message.content
        try:
            AGUIAdapter.load_messages(run_input.messages)
        except ValueError as e:  # includes pydantic's ValidationError
            return _error(422, f"Unsupported AG-UI messages: {e}")

        sent = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await request.receive()

        RAW_TOOL_CONTENT.set(raw_contents)
        FILE_NAMES.set(names)
        return await AGUIAdapter.dispatch_request(Request(request.scope, replay), agent=agent, capabilities=[noted])

    return endpoint


def _file_names(content: Any) -> list[str | None]:
    """The names a user message's file parts give in their `metadata` (pyclient's), in order."""
    if isinstance(content, str):
        return []
    names: list[str | None] = []
    for part in content:
        if part.type == "text":
            continue
        ours = (getattr(part, "metadata", None) or {}).get("pyclient")
        name = ours.get("filename") if isinstance(ours, dict) else None
        names.append(name if isinstance(name, str) else None)
    return names


async def _note_run_error(ctx: RunContext[Any], *, error: BaseException) -> AgentRunResult[Any]:
    if isinstance(error, Exception):  # not a cancellation (the client hung up)
        note("the agent failed: " + describe_error(error))
    raise error

