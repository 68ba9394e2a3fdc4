"""Runs the dev server's deterministic demo model, a pydantic-ai `FunctionModel` that needs no key and no network.

The demo model reads the latest user message and calls the page's client tools that best
match its words, with arguments built from each tool's JSON Schema (`pyclient.server._matcher`,
`pyclient.server._arguments`); several matching tools are called in one response. Once the
results come back it answers with text that quotes each verbatim. It streams like a real model
(arguments in chunks of about `ARGS_CHUNK_CHARS`, text in several deltas), and two trigger
words help client tests: "slowly" spreads the stream over seconds, "interleaved" alternates the
argument chunks of parallel calls. The phrases the demo page suggests and what they call
(tested in `tests/server/test_demo_phrases.py`): docs/deployment.md ("The demo model").
`build_agent(model)` takes a pydantic-ai model string instead; the texts and matcher names
re-exported here are what other demo models reuse (`tests/agents/langgraph_app.py`).

```python
import asyncio

from pyclient.server._demo_model import build_agent


async def main() -> None:
    async with build_agent().run_stream("hello") as result:
        print(await result.get_output())  # You said: "hello". I have no tools to call.


asyncio.run(main())
```
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence

from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    FileUrl,
    ModelMessage,
    ModelRequest,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import (
    AgentInfo,
    DeltaToolCall,
    DeltaToolCalls,
    FunctionModel,
)

# PlannedCall and ToolSpec are not used here: they are exported with plan_tool_calls so that other
# demo models built on this one (tests/agents/langgraph_app.py) find the whole matcher in one place.
from .._tools._media import format_size, kind_of_mime
from ._matcher import PlannedCall, plan_tool_calls
from ._toolspec import ToolSpec
from ._words import split_identifier

__all__ = [
    "ARGS_CHUNK_CHARS",
    "DEMO_MODEL_NAME",
    "FILE_NAMES",
    "MAX_ARGS_CHUNKS",
    "RAW_TOOL_CONTENT",
    "SLOW_PAUSE_S",
    "SLOW_TEXT_DELTAS",
    "PlannedCall",
    "ToolSpec",
    "build_agent",
    "chunk_text",
    "demo_stream",
    "describe_files",
    "files_answer",
    "describe_tool_results",
    "no_tool_answer",
    "plan_tool_calls",
    "wants_interleaving",
    "wants_slow",
]

DEMO_MODEL_NAME = "pyclient-demo"
"""The name the demo model reports (`FunctionModel(model_name=...)`)."""

SLOW_PAUSE_S = 0.2
"""Pause between deltas when the user message contains "slowly"."""

SLOW_TEXT_DELTAS = 15
"""Number of text deltas of a slow answer: 14 pauses of 0.2 s, about 3 s in all."""

_INSTRUCTIONS = (
    "You are the assistant of a web page. The page offers client tools that run in the "
    "user's browser; call them when they fit the request, then tell the user what they returned."
)


def describe_tool_results(results: Iterable[tuple[str, str, bool]]) -> str:
    """The answer after tool results: one line per `(tool_name, content, failed)`, quoting `content` verbatim.

    `change_background returned: "background is now blue"` / `save_note failed: "quota exceeded"`.
    """
    lines = []
    for tool_name, content, failed in results:
        verb = "failed" if failed else "returned"
        lines.append(f'{tool_name} {verb}: "{content}"')
    return "\n".join(lines) if lines else "Done."


def _hint(tool_name: str) -> str:
    """A message that calls `tool_name`: its name's words ("add_item": "add item …")."""
    return " ".join(split_identifier(tool_name)) + " …"


def no_tool_answer(text: str, tool_names: Sequence[str]) -> str:
    """The answer when no advertised tool matches `text` (or there is none)."""
    if tool_names:
        return (f"I have no tool for that. Available tools: {', '.join(tool_names)}. I call one when your "
                f"message starts with its verb or uses words of its name (\"{_hint(tool_names[0])}\").")
    if not text.strip():
        return "Hello! I am the pyclient demo model. Send me a message."
    return f'You said: "{text}". I have no tools to call.'


def wants_slow(text: str) -> bool:
    """True when the user message asks for a slow stream (it contains the word "slowly")."""
    return bool(re.search(r"\bslowly\b", text, re.I))


def wants_interleaving(text: str) -> bool:
    """True when parallel calls' argument chunks should alternate (the word "interleaved")."""
    return bool(re.search(r"\binterleaved?\b", text, re.I))


def chunk_text(text: str, pieces: int) -> list[str]:
    """`text` cut into `pieces` contiguous parts of near-equal length (fewer if it is shorter)."""
    if not text:
        return [""]
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out, pos = [], 0
    for i in range(pieces):
        step = size + (1 if i < extra else 0)
        out.append(text[pos: pos + step])
        pos += step
    return out


def _text_deltas(text: str, slow: bool) -> list[str]:
    if slow:
        return chunk_text(text, SLOW_TEXT_DELTAS)
    words = re.findall(r"\S+\s*|\s+", text)
    return words or [text]


ARGS_CHUNK_CHARS = 20
"""About this many characters per `TOOL_CALL_ARGS` chunk (at least 3 chunks, at most `MAX_ARGS_CHUNKS`)."""

MAX_ARGS_CHUNKS = 16
"""A long argument string (a task's notes) comes in this many chunks at most: about 3 s when slow."""


def _args_chunks(args_json: str) -> list[str]:
    return chunk_text(args_json, max(3, min(MAX_ARGS_CHUNKS, -(-len(args_json) // ARGS_CHUNK_CHARS))))


RAW_TOOL_CONTENT: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "pyclient_raw_tool_content", default={}
)
"""tool_call_id → the content string the client sent, so answers quote it byte for byte
(pydantic-ai parses JSON-looking tool content into objects)."""


FILE_NAMES: contextvars.ContextVar[Sequence[str | None]] = contextvars.ContextVar("pyclient_file_names", default=())
"""The names of the files of the request's last user message, in order (None: a file with no
name), as its parts' `metadata` give them (pyclient's `{"pyclient": {"filename": ...}}`)."""

_KINDS = {"image": ("image", "images"), "audio": ("audio file", "audio files"), "video": ("video", "videos"),
          "document": ("document", "documents")}


def describe_files(files: Sequence[tuple[str | None, str, int | None]]) -> str:
    """`(name, media type, size)` files in words, by kind: "1 image (chart.png, 2 kB) and 2
    documents (a.pdf, 120 B; image/png, link)"; a file with no name is named by its type, one
    sent by URL (no size) is a "link"."""
    groups: dict[str, list[str]] = {}
    for name, media_type, size in files:
        said = f"{name or media_type}, {format_size(size) if size is not None else 'link'}"
        groups.setdefault(kind_of_mime(media_type), []).append(said)
    phrases = [f"{len(items)} {_KINDS[kind][len(items) > 1]} ({'; '.join(items)})" for kind, items in groups.items()]
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _files_of(items: Sequence[object], names: Sequence[str | None] = ()) -> list[tuple[str | None, str, int | None]]:
    """The files among a part's items (pydantic-ai's `BinaryContent` and URLs), each with the
    name `names` gives it at its position."""
    files: list[tuple[str | None, str, int | None]] = []
    for item in items:
        if isinstance(item, (BinaryContent, FileUrl)):
            name = names[len(files)] if len(files) < len(names) else None
            size = len(item.data) if isinstance(item, BinaryContent) else None
            files.append((name, item.media_type, size))
    return files


def files_answer(text: str, files: Sequence[tuple[str | None, str, int | None]]) -> str:
    """The answer to a message with files that calls no tool: the files named, and the text quoted."""
    said = f' with your message "{text}"' if text.strip() else ""
    return f"I got {describe_files(files)}{said}. I am the demo model: I cannot look inside files."


def _user_text(part: UserPromptPart) -> str:
    content = part.content
    if isinstance(content, str):
        return content
    return " ".join(c if isinstance(c, str) else getattr(c, "content", "") or "" for c in content
                    if isinstance(c, str) or isinstance(getattr(c, "content", None), str))


def _latest_user_prompt(messages: Sequence[ModelMessage]) -> UserPromptPart | None:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart):
                    return part
    return None


def _result_content(part: ToolReturnPart) -> str:
    raw = RAW_TOOL_CONTENT.get().get(part.tool_call_id)
    if raw is not None:
        return raw
    if isinstance(part.content, str):
        return part.content
    if isinstance(part.content, list) and (files := _files_of(part.content)):
        texts = " ".join(item for item in part.content if isinstance(item, str))
        return f"{texts} [{describe_files(files)}]" if texts else describe_files(files)
    try:
        return json.dumps(part.content, ensure_ascii=False)
    except (TypeError, ValueError):
        return part.model_response_str()


async def demo_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    """The demo model's `FunctionModel` stream function (see the module docstring for its behaviour)."""
    last = messages[-1] if messages else None
    prompt = _latest_user_prompt(messages)
    text = _user_text(prompt) if prompt is not None else ""
    slow = wants_slow(text)
    tools = [*info.function_tools]

    last_parts = last.parts if isinstance(last, ModelRequest) else []
    has_new_prompt = any(isinstance(p, UserPromptPart) for p in last_parts)
    returns = [p for p in last_parts if isinstance(p, ToolReturnPart)]
    other_results = [p for p in last_parts if getattr(p, "tool_name", None) and not isinstance(p, ToolReturnPart)]

    if not has_new_prompt and (returns or other_results):
        results = [
            (p.tool_name, _result_content(p), p.outcome in ("failed", "denied", "retried")) for p in returns
        ]
        for p in other_results:  # retry prompts and the like: quote what the model was told
            results.append((str(getattr(p, "tool_name", "tool")), str(getattr(p, "content", "")), True))
        async for delta in _stream_text(describe_tool_results(results), slow):
            yield delta
        return

    calls = plan_tool_calls(text, tools) if tools else []
    files = _files_of(prompt.content, FILE_NAMES.get()) if prompt is not None and has_new_prompt \
        and not isinstance(prompt.content, str) else []
    if not calls:
        answer = files_answer(text, files) if files else no_tool_answer(text, [t.name for t in tools])
        async for delta in _stream_text(answer, slow):
            yield delta
        return

    ids = [f"call_{uuid.uuid4().hex[:16]}" for _ in calls]
    chunks = [_args_chunks(json.dumps(c.args, ensure_ascii=False)) for c in calls]
    if wants_interleaving(text) and len(calls) > 1:
        # Each call starts (name and id alone) before its first chunk, then the remaining
        # chunks alternate between the calls.
        for i, call in enumerate(calls):
            yield {i: DeltaToolCall(name=call.tool_name, tool_call_id=ids[i])}
            yield {i: DeltaToolCall(json_args=chunks[i][0])}
            if slow:
                await asyncio.sleep(SLOW_PAUSE_S)
        rounds = max(len(c) for c in chunks)
        for r in range(1, rounds):
            for i in range(len(calls)):
                if r < len(chunks[i]):
                    yield {i: DeltaToolCall(json_args=chunks[i][r])}
                    if slow:
                        await asyncio.sleep(SLOW_PAUSE_S)
        return
    for i, call in enumerate(calls):
        # Name and id first, arguments in later chunks (some servers drop arguments that share
        # a chunk with the name).
        yield {i: DeltaToolCall(name=call.tool_name, tool_call_id=ids[i])}
        for chunk in chunks[i]:
            if slow:
                await asyncio.sleep(SLOW_PAUSE_S)
            yield {i: DeltaToolCall(json_args=chunk)}


async def _stream_text(text: str, slow: bool) -> AsyncIterator[str]:
    for i, delta in enumerate(_text_deltas(text, slow)):
        if slow and i:
            await asyncio.sleep(SLOW_PAUSE_S)
        yield delta


def build_agent(model: str | None = None) -> Agent[None, str]:
    """The dev server's agent: the demo model when `model` is None, else a pydantic-ai model string
    such as "openai:gpt-4o" (its provider's key must be in the environment)."""
    if model is None:
        return Agent(
            FunctionModel(stream_function=demo_stream, model_name=DEMO_MODEL_NAME),
            name="pyclient-demo",
        )
    return Agent(model, instructions=_INSTRUCTIONS, name="pyclient-agent")
