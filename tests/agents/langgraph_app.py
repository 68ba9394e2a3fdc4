"""A second, independent AG-UI server for run-loop tests: a LangGraph graph served by ag-ui-langgraph, on a deterministic fake chat model (no key, no network).

The graph is one `model` node over a `MessagesState` with a `tools` key (ag-ui-langgraph puts the
run's frontend tools there) and a `MemorySaver` checkpointer. Its model, `DemoChatModel`, is a
small `BaseChatModel` that picks the frontend tools matching the latest user message with the
dev server's matcher (`devserver.matcher.plan_tool_calls`), streams each call as a first chunk
with the name and id alone and then the arguments in later chunks (ag-ui-langgraph drops
arguments that share a chunk with the name), and after tool results answers with text quoting
each result. "slowly" in the user message spreads the stream over about 3 s.

```python
import uvicorn

from tests.agents.langgraph_app import create_app

uvicorn.run(create_app(), host="127.0.0.1", port=8001)  # POST AG-UI runs to /agent
```
"""

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.callbacks import (
    AsyncCallbackManagerForLLMRun,
    CallbackManagerForLLMRun,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from pydantic import Field

try:
    from devserver import demo_model as _demo
except ImportError:  # run from a checkout without the repo root on sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from devserver import demo_model as _demo

__all__ = ["AgentState", "DemoChatModel", "build_graph", "create_app"]


class AgentState(MessagesState):
    """The graph state: messages plus the frontend tools ag-ui-langgraph passes in."""

    tools: list[Any]


def _text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(
        part if isinstance(part, str) else str(part.get("text", ""))
        for part in content
        if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
    )


class DemoChatModel(BaseChatModel):
    """A deterministic chat model that calls the bound frontend tools matching the user's words."""

    tools: list[Any] = Field(default_factory=list)
    """The tools given to `bind_tools` (AG-UI tool dicts or OpenAI-style function dicts)."""

    @property
    def _llm_type(self) -> str:
        return "pyclient-demo"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "DemoChatModel":  # type: ignore[override]
        return self.model_copy(update={"tools": list(tools)})

    # -- planning ------------------------------------------------------------------------

    def _plan(self, messages: Sequence[BaseMessage]) -> tuple[str, list[_demo.PlannedCall], bool]:
        """(answer text, tool calls, slow?) for this conversation: exactly one of text/calls is used."""
        user_text = next((_text_of(m) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        slow = _demo.wants_slow(user_text)
        trailing: list[ToolMessage] = []
        for message in reversed(messages):
            if not isinstance(message, ToolMessage):
                break
            trailing.append(message)
        if trailing:
            names = {
                call["id"]: call["name"]
                for m in messages
                if isinstance(m, AIMessage)
                for call in m.tool_calls
            }
            results = [
                (
                    names.get(m.tool_call_id, m.name or "tool"),
                    _text_of(m),
                    getattr(m, "status", "success") == "error",
                )
                for m in reversed(trailing)
            ]
            return _demo.describe_tool_results(results), [], slow
        specs = [_demo.ToolSpec.of(t) for t in self.tools]
        calls = _demo.plan_tool_calls(user_text, specs) if specs else []
        if calls:
            return "", calls, slow
        return _demo.no_tool_answer(user_text, [s.name for s in specs]), [], slow

    def _chunks(self, messages: Sequence[BaseMessage]) -> Iterator[tuple[AIMessageChunk, bool]]:
        """The stream: (chunk, pause before it?)."""
        text, calls, slow = self._plan(messages)
        if not calls:
            pieces = _demo.chunk_text(text, _demo.SLOW_TEXT_DELTAS) if slow else text.split(" ")
            for i, piece in enumerate(pieces):
                delta = piece if slow or i == len(pieces) - 1 else piece + " "
                yield AIMessageChunk(content=delta), slow and i > 0
            return
        for index, call in enumerate(calls):
            call_id = f"call_{uuid.uuid4().hex[:16]}"
            yield AIMessageChunk(
                content="",
                tool_call_chunks=[{"name": call.tool_name, "id": call_id, "args": "", "index": index}],
            ), False
            args = json.dumps(call.args, ensure_ascii=False)
            for piece in _demo.chunk_text(args, 3):
                yield AIMessageChunk(
                    content="",
                    tool_call_chunks=[{"name": None, "id": None, "args": piece, "index": index}],
                ), slow

    # -- BaseChatModel -------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        merged: AIMessageChunk | None = None
        for chunk, _ in self._chunks(messages):
            merged = chunk if merged is None else merged + chunk
        message = AIMessage(
            content=merged.content if merged else "",
            tool_calls=merged.tool_calls if merged else [],
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk, pause in self._chunks(messages):
            if pause:
                await asyncio.sleep(_demo.SLOW_PAUSE_S)
            # BaseChatModel reports each chunk to the callbacks (astream_events) itself.
            yield ChatGenerationChunk(message=chunk)


def build_graph():
    """START → model → END, checkpointed in memory; the model node binds `state["tools"]`."""

    async def model_node(state: AgentState, config: RunnableConfig) -> dict[str, Any]:
        model = DemoChatModel().bind_tools(state.get("tools") or [])
        response = await model.ainvoke(state["messages"], config)
        return {"messages": [response]}

    graph = StateGraph(AgentState)
    graph.add_node("model", model_node)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    return graph.compile(checkpointer=MemorySaver())


def create_app() -> FastAPI:
    """A FastAPI app serving the LangGraph demo agent over AG-UI at POST /agent."""
    app = FastAPI(title="pyclient LangGraph test server")
    add_langgraph_fastapi_endpoint(
        app,
        LangGraphAgent(name="pyclient_langgraph_demo", graph=build_graph()),
        "/agent",
    )
    return app


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(create_app(), host="127.0.0.1", port=8001)
