"""A LangGraph graph served by ag-ui-langgraph whose runs end with a LangGraph `interrupt()` (no model, no network).

The graph is one `ask` node over a `MessagesState` with a `MemorySaver` checkpointer. `ask` calls
`interrupt({"message": "Which colour?", "responseSchema": {...colour...}})` (ag-ui-langgraph maps
`message` and `responseSchema` onto the AG-UI `Interrupt`, see its `interrupts.py`), and once
resumed answers with an `AIMessage` "You chose <answer>" (`answer` json-dumped unless a str).

The graph is served twice on one FastAPI app:

- `/agent` with ag-ui-langgraph's defaults: the interrupt is a `CUSTOM` event named
  `on_interrupt` followed by a bare `RUN_FINISHED`, and the run is resumed with
  `forwardedProps.command.resume` (the legacy channel);
- `/agent-outcome` with `emit_interrupt_outcome=True`: the same `CUSTOM` event, then
  `RUN_FINISHED.outcome = {"type": "interrupt", ...}`, resumed with `RunAgentInput.resume[]`
  (a `"cancelled"` entry reaches the node as `{"__agui_cancelled__": True, "interrupt_id": ...}`).

`app.state.log` (an `InterruptLog`) records every POST body (`bodies`, with `paths`), the raw
`resume` array of each request that had one (`resumes`), each `forwardedProps.command.resume`
(`commands`), and every value `interrupt()` returned to the node (`answers`).

```python
import uvicorn

from tests.agents.langgraph_interrupt_app import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8003)  # POST AG-UI runs to /agent or /agent-outcome
```
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["INTERRUPT_VALUE", "InterruptLog", "build_graph", "create_app"]

INTERRUPT_VALUE: dict[str, Any] = {
    "message": "Which colour?",
    "responseSchema": {
        "type": "object",
        "properties": {"colour": {"type": "string"}},
        "required": ["colour"],
    },
}
"""The value the `ask` node interrupts with."""


@dataclass
class InterruptLog:
    """What an interrupt app saw, for tests to assert on."""

    bodies: list[Any] = field(default_factory=list)
    """Every POST body, as parsed JSON (or the raw text when it isn't JSON)."""
    paths: list[str] = field(default_factory=list)
    """The path of each of `bodies`."""
    resumes: list[list[dict[str, Any]]] = field(default_factory=list)
    """The raw `resume` array of every request that carried a non-empty one."""
    commands: list[Any] = field(default_factory=list)
    """Every `forwardedProps.command.resume` value sent (legacy resume channel)."""
    answers: list[Any] = field(default_factory=list)
    """Every value `interrupt()` returned to the `ask` node, in order."""

    def clear(self) -> None:
        """Forget everything seen so far (a session-wide log, between tests)."""
        self.bodies.clear()
        self.paths.clear()
        self.resumes.clear()
        self.commands.clear()
        self.answers.clear()


class _BodyRecorder:
    """ASGI middleware: reads each POST body into the log, then replays it to the app."""

    def __init__(self, app: ASGIApp, log: InterruptLog) -> None:
        self.app = app
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        more = True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        self._record(scope["path"], raw)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _record(self, path: str, raw: bytes) -> None:
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.log.bodies.append(body)
        self.log.paths.append(path)
        if not isinstance(body, dict):
            return
        if body.get("resume"):
            self.log.resumes.append(body["resume"])
        command = (body.get("forwardedProps") or {}).get("command")
        if isinstance(command, dict) and "resume" in command:
            self.log.commands.append(command["resume"])


def build_graph(log: InterruptLog) -> Any:
    """START → ask → END, checkpointed in memory; `ask` interrupts, then answers with the resume value."""

    def ask(state: MessagesState) -> dict[str, Any]:
        answer = interrupt(INTERRUPT_VALUE)
        log.answers.append(answer)
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return {"messages": [AIMessage(content=f"You chose {text}")]}

    graph = StateGraph(MessagesState)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=MemorySaver())


def create_app() -> FastAPI:
    """The graph at `/agent` (legacy interrupt channel) and `/agent-outcome` (1.0 outcome); `app.state.log`."""
    log = InterruptLog()
    app = FastAPI(title="pyclient LangGraph interrupt test server")
    add_langgraph_fastapi_endpoint(
        app, LangGraphAgent(name="pyclient_langgraph_interrupt", graph=build_graph(log)), "/agent"
    )
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(name="pyclient_langgraph_interrupt_outcome", graph=build_graph(log),
                       emit_interrupt_outcome=True),
        "/agent-outcome",
    )
    app.add_middleware(_BodyRecorder, log=log)
    app.state.log = log
    return app


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(create_app(), host="127.0.0.1", port=8003)
