"""Fixtures for the AG-UI server tests: real uvicorn servers on 127.0.0.1 and a small AG-UI client.

`agent_url` serves `devserver.agent.agent_endpoint()` (pydantic-ai), `langgraph_url` serves
`tests.agents.langgraph_app.create_app()` (ag-ui-langgraph); both run in a background thread
for the whole session. `agui` gives helpers to build `RunAgentInput` bodies, post them and
decode the SSE answer into `ag_ui.core` events with their arrival times.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Event,
    FunctionCall,
    Message,
    RunAgentInput,
    Tool,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from pydantic import TypeAdapter

from devserver.background import ServerThread

ROOT = Path(__file__).resolve().parents[2]

SMALL_LIMIT = 4_096
"""The body limit of the `/agent-small` route (the `/agent` route keeps the 1 MB default)."""


@pytest.fixture(scope="session")
def agent_server() -> Iterator[ServerThread]:
    from starlette.applications import Starlette
    from starlette.routing import Route

    from devserver.agent import agent_endpoint

    app = Starlette(
        routes=[
            Route("/agent", agent_endpoint(), methods=["POST"]),
            Route("/agent-small", agent_endpoint(max_body_bytes=SMALL_LIMIT), methods=["POST"]),
        ]
    )
    with ServerThread(app) as server:
        yield server


@pytest.fixture(scope="session")
def agent_url(agent_server: ServerThread) -> str:
    return agent_server.url + "/agent"


@pytest.fixture(scope="session")
def langgraph_url() -> Iterator[str]:
    with ServerThread(load_langgraph_app().create_app()) as server:
        yield server.url + "/agent"


def load_langgraph_app() -> Any:
    """The `tests/agents/langgraph_app.py` module, loaded by path (`tests` is no package)."""
    name = "pyclient_tests_langgraph_app"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "agents" / "langgraph_app.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


# ------------------------------------------------------------------------------------------
# A small AG-UI client
# ------------------------------------------------------------------------------------------

_EVENT = TypeAdapter(Event)


@dataclass
class RunResult:
    """A run's HTTP status, decoded events, and when each arrived (s after the request was sent)."""

    status: int
    events: list[BaseEvent] = field(default_factory=list)
    arrivals: list[float] = field(default_factory=list)
    body: str = ""

    @property
    def types(self) -> list[str]:
        return [str(e.type.value if hasattr(e.type, "value") else e.type) for e in self.events]

    def of(self, *types: str) -> list[Any]:
        return [e for e, t in zip(self.events, self.types) if t in types]

    def text(self) -> str:
        return "".join(e.delta for e in self.of("TEXT_MESSAGE_CONTENT"))

    def tool_calls(self) -> dict[str, dict[str, Any]]:
        """toolCallId → {"name", "args" (assembled per id), "parent_message_id", "arg_chunks"}."""
        calls: dict[str, dict[str, Any]] = {}
        for event in self.events:
            kind = event.type.value if hasattr(event.type, "value") else event.type
            if kind == "TOOL_CALL_START":
                calls[event.tool_call_id] = {
                    "name": event.tool_call_name,
                    "args": "",
                    "parent_message_id": event.parent_message_id,
                    "arg_chunks": 0,
                }
            elif kind == "TOOL_CALL_ARGS":
                calls[event.tool_call_id]["args"] += event.delta
                calls[event.tool_call_id]["arg_chunks"] += 1
        return calls


def parse_sse(lines: Iterator[str]) -> Iterator[str]:
    """The `data` payloads of an SSE stream (multi-line data joined with newlines)."""
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
    if data:
        yield "\n".join(data)


class Agui:
    """Helpers to build AG-UI bodies and run them against a server."""

    SMALL_LIMIT = SMALL_LIMIT

    @staticmethod
    def tool(name: str, description: str, parameters: Mapping[str, Any]) -> Tool:
        return Tool(name=name, description=description, parameters=dict(parameters))

    @staticmethod
    def run_input(
        messages: Sequence[Message],
        tools: Sequence[Tool] = (),
        *,
        thread_id: str = "thread-1",
        run_id: str | None = None,
    ) -> RunAgentInput:
        return RunAgentInput(
            thread_id=thread_id,
            run_id=run_id or f"run-{time.monotonic_ns()}",
            protocol_version="1.0",
            state={},
            messages=list(messages),
            tools=list(tools),
            context=[],
            forwarded_props={},
        )

    @staticmethod
    def user(text: str, message_id: str = "user-1") -> UserMessage:
        return UserMessage(id=message_id, content=text)

    @staticmethod
    def follow_up(
        first: RunAgentInput,
        result: RunResult,
        outputs: Mapping[str, str],
        *,
        errors: Mapping[str, str] | None = None,
    ) -> RunAgentInput:
        """The next run after `result`'s tool calls: the assistant message (id = the calls'
        parentMessageId) with `toolCalls`, then one tool message per call. `outputs` maps a
        tool name to its content; `errors` (tool name → message) marks failures."""
        calls = result.tool_calls()
        parent = next(iter(calls.values()))["parent_message_id"] or "assistant-1"
        errors = errors or {}
        history: list[Message] = list(first.messages)
        history.append(
            AssistantMessage(
                id=parent,
                tool_calls=[
                    ToolCall(id=cid, type="function", function=FunctionCall(name=c["name"], arguments=c["args"]))
                    for cid, c in calls.items()
                ],
            )
        )
        for i, (cid, c) in enumerate(calls.items()):
            if c["name"] in errors:
                history.append(
                    ToolMessage(id=f"tool-{i}", tool_call_id=cid, content=errors[c["name"]], error=errors[c["name"]])
                )
            else:
                history.append(ToolMessage(id=f"tool-{i}", tool_call_id=cid, content=outputs[c["name"]]))
        return Agui.run_input(history, first.tools or [], thread_id=first.thread_id)

    @staticmethod
    def dump(run_input: RunAgentInput) -> dict[str, Any]:
        return run_input.model_dump(by_alias=True, exclude_none=True, mode="json")

    @staticmethod
    def run(url: str, body: RunAgentInput | Mapping[str, Any], *, timeout: float = 30.0) -> RunResult:
        """POST a run and read its SSE stream to the end (a fresh connection each time)."""
        payload = Agui.dump(body) if isinstance(body, RunAgentInput) else dict(body)
        content = json.dumps(payload).encode()
        headers = {"content-type": "application/json", "accept": "text/event-stream"}
        for attempt in range(2):
            try:
                return Agui._run_once(url, content, headers, timeout)
            except (httpx.ReadError, httpx.RemoteProtocolError):
                if attempt:
                    raise
        raise AssertionError("unreachable")

    @staticmethod
    def _run_once(url: str, content: bytes, headers: Mapping[str, str], timeout: float) -> RunResult:
        start = time.monotonic()
        with httpx.Client(timeout=timeout) as client, client.stream("POST", url, content=content, headers=headers) as r:
            result = RunResult(status=r.status_code)
            if r.status_code != 200:
                r.read()
                result.body = r.text
                return result
            for data in parse_sse(r.iter_lines()):
                result.events.append(_EVENT.validate_json(data))
                result.arrivals.append(time.monotonic() - start)
        return result

    @staticmethod
    def post(url: str, content: bytes | Iterator[bytes], headers: Mapping[str, str] | None = None) -> httpx.Response:
        with httpx.Client(timeout=30) as client:
            return client.post(url, content=content, headers=dict(headers or {}))


@pytest.fixture(scope="session")
def agui() -> type[Agui]:
    return Agui
