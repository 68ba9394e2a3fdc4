"""Shared fixtures: the dev server on a free 127.0.0.1 port, started once per session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import settings

from devserver.background import ServerThread
from pyclient.testing import read_body

# Hypothesis profiles for the property tests (tests/unit/test_properties_*.py). "ci" is loaded
# unless `--hypothesis-profile` names another: "deep" runs 10,000 examples per property. Timing
# never matters (deadline=None). "ci" is derandomized: the same few thousand examples every run,
# so a landing never depends on the draw (the slow properties ask for fewer:
# `tests.unit.agui_streams.budget`); "deep" draws new examples each run to explore, and a
# failure prints a blob to reproduce it.
settings.register_profile("ci", max_examples=1500, deadline=None, derandomize=True, print_blob=True)
settings.register_profile("deep", max_examples=10_000, deadline=None, derandomize=False, print_blob=True)


def pytest_configure(config: pytest.Config) -> None:
    # pyclient's own pytest plugin: loaded by its `pytest11` entry point once this checkout is
    # installed with the current pyproject.toml; registered here when the installed metadata
    # predates it (the same module twice would be an error).
    if not config.pluginmanager.has_plugin("pyclient"):
        from pyclient.testing import plugin

        config.pluginmanager.register(plugin, "pyclient")
    if not config.getoption("--hypothesis-profile", None):
        settings.load_profile("ci")


@dataclass
class AgentLog:
    """Every request body that reached `POST /agent*`, decoded, in arrival order."""

    bodies: list[dict] = field(default_factory=list)

    def clear(self) -> None:
        self.bodies.clear()


class _RecordAgentBodies:
    """ASGI middleware that records agent request bodies so tests can assert on them."""

    def __init__(self, app, log: AgentLog) -> None:
        self.app, self.log = app, log

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith("/agent"):
            return await self.app(scope, receive, send)
        body = await read_body(receive)
        try:
            self.log.bodies.append(json.loads(body))
        except ValueError:
            self.log.bodies.append({"_raw": body.decode(errors="replace")})
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


@pytest.fixture(scope="session")
def runtime():
    """The browser runtime, built (or confirmed up to date) once per session."""
    from devserver.assets import build

    return build()


@pytest.fixture(scope="session")
def agent_log() -> AgentLog:
    return AgentLog()


@dataclass
class SlowLog:
    """What `GET /test/slow` saw: how many requests arrived, and how each ended
    ("completed" or "disconnected")."""

    started: int = 0
    outcomes: list[str] = field(default_factory=list)

    def clear(self) -> None:
        self.started = 0
        self.outcomes.clear()


class _SlowBody:
    """`GET /test/slow?seconds=S`: a body that trickles for S seconds (for abort tests).

    Raw ASGI, listening for `http.disconnect` itself: whether a server notices a client that
    went away through a failed write depends on its flow control, and the test must know.
    """

    def __init__(self, log: SlowLog) -> None:
        self.log = log

    async def __call__(self, scope, receive, send) -> None:
        import asyncio
        from urllib.parse import parse_qs

        seconds = float(parse_qs(scope["query_string"].decode()).get("seconds", ["5"])[0])
        self.log.started += 1

        sent_all = False

        async def trickle() -> str:
            nonlocal sent_all
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"text/plain")]})
            for _ in range(int(seconds * 20)):
                await send({"type": "http.response.body", "body": b".", "more_body": True})
                await asyncio.sleep(0.05)
            sent_all = True
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return "completed"

        async def disconnected() -> str:
            while (await receive())["type"] != "http.disconnect":
                pass
            # Servers also report a disconnect once the response is complete.
            return "completed" if sent_all else "disconnected"

        tasks = [asyncio.ensure_future(trickle()), asyncio.ensure_future(disconnected())]
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        self.log.outcomes.append(done.pop().result())


def _slow_route(log: SlowLog):
    from starlette.routing import Route

    return Route("/test/slow", _SlowBody(log))


DEEP_JSON = "[" * 10_000 + "]" * 10_000
HUGE_INT = "7" * 5_000
NESTED_OK_DEPTH = 39  # with the event's own object: pyclient._json.MAX_DEPTH


def _bad_agent_route():
    """`POST /test/bad-agent`: an AG-UI agent that answers the last user message with bad input.

    "deep-event": a STATE_SNAPSHOT nested 10,000 deep; "huge-int": one holding a 5,000-digit
    integer; "deep-args": a call of `nested` whose arguments are nested 10,000 deep; "emoji":
    an emoji whose surrogate halves come in two escaped deltas; "lone": a text delta ending in
    half a surrogate pair; "nested-ok": a STATE_SNAPSHOT nested `NESTED_OK_DEPTH` deep (within
    the limit). Anything else, and every follow-up, is answered "ok".
    """
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request):
        body = json.loads(await request.body())
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        last = body["messages"][-1] if body["messages"] else {}
        case = last.get("content") if last.get("role") == "user" else "follow-up"
        message = '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-%s", "delta": %%s}' % body["runId"]
        payloads = {
            "deep-event": ['{"type": "STATE_SNAPSHOT", "snapshot": ' + DEEP_JSON + "}"],
            "huge-int": ['{"type": "STATE_SNAPSHOT", "snapshot": ' + HUGE_INT + "}"],
            "deep-args": [
                json.dumps({"type": "TOOL_CALL_START", "toolCallId": "c-" + body["runId"],
                            "toolCallName": "nested", "parentMessageId": "m-" + body["runId"]}),
                json.dumps({"type": "TOOL_CALL_ARGS", "toolCallId": "c-" + body["runId"],
                            "delta": '{"data": ' + DEEP_JSON + "}"}),
            ],
            "emoji": [message % '"hi \\ud83d"', message % '"\\ude00!"'],
            "lone": [message % '"cut \\ud83d"'],
            "nested-ok": ['{"type": "STATE_SNAPSHOT", "snapshot": ' + "[" * NESTED_OK_DEPTH + "]" * NESTED_OK_DEPTH + "}"],
        }.get(case, [message % '"ok"'])
        events = [json.dumps({"type": "RUN_STARTED", **ids}), *payloads, json.dumps({"type": "RUN_FINISHED", **ids})]
        return Response("".join(f"data: {e}\n\n" for e in events), media_type="text/event-stream")

    return Route("/test/bad-agent", endpoint, methods=["POST"])


@pytest.fixture(scope="session")
def slow_log() -> SlowLog:
    return SlowLog()


class _ScriptedAgent:
    """`POST /agent/scripted`: a deterministic AG-UI agent for the reload tests (web/tests/store.html).

    The latest user message says what to do: "call hold ..." streams a text and a call of
    `act` ("call<k>" for the k-th user message), then holds the stream open until the page
    goes away; "call pair ..." streams a text, a call of `act` ("call<k>") and one of `ask`
    ("call<k>b"), and finishes. A follow-up (the last message is a tool message) gets a text
    quoting the results, unless the user message said "hold-followup": then it starts a reply
    and holds until the page goes away. Anything else gets the text "reply <n>".
    """

    async def __call__(self, scope, receive, send) -> None:
        import uuid

        body = json.loads(await read_body(receive))
        messages = body["messages"]
        users = [m for m in messages if m["role"] == "user"]
        said = users[-1]["content"] if users else ""
        k = len(users)
        message_id = f"m-{uuid.uuid4().hex[:8]}"
        events: list[dict] = [{"type": "RUN_STARTED", "threadId": body["threadId"], "runId": body["runId"]}]
        hold = False

        def text(content: str, *, end: bool = True) -> None:
            events.append({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"})
            events.append({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": content})
            if end:
                events.append({"type": "TEXT_MESSAGE_END", "messageId": message_id})

        def call(call_id: str, name: str, args: dict) -> None:
            events.append({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name,
                           "parentMessageId": message_id})
            events.append({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": json.dumps(args)})
            events.append({"type": "TOOL_CALL_END", "toolCallId": call_id})

        if messages and messages[-1]["role"] == "tool":
            if "hold-followup" in said:
                text("Thanks, I am", end=False)
                hold = True
            else:
                text("done: " + " | ".join(m["content"] for m in messages if m["role"] == "tool"))
        elif said.startswith("call hold"):
            text("On it.")
            call(f"call{k}", "act", {"x": str(k)})
            hold = True
        elif said.startswith("call pair"):
            text("On it.")
            call(f"call{k}", "act", {"x": str(k)})
            call(f"call{k}b", "ask", {"question": "which colour?"})
        else:
            text(f"reply {len(messages)}")
        if not hold:
            events.append({"type": "RUN_FINISHED", "threadId": body["threadId"], "runId": body["runId"]})
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        for event in events:
            await send({"type": "http.response.body", "body": f"data: {json.dumps(event)}\n\n".encode(),
                        "more_body": True})
        if hold:  # until the page goes away (a reload)
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


# Hostile text the chat tests deliver as assistant text, tool arguments, tool results and error
# messages: none of it may run, load or become an element (tests/e2e/test_chat_ui.py).
XSS_PAYLOADS = (
    "<script>window.__xss = 'script'</script>",
    "<img src=x onerror=\"window.__xss='img'\">",
    "<svg onload=\"window.__xss='svg'\"></svg>",
    "<a href=\"javascript:window.__xss='href'\">raw link</a>",
    "[md link](javascript:window.__xss='md')",
    "[x](javascript:alert(1))",
    "![md image](https://127.0.0.1/pixel.png)",
    "![bad image](javascript:window.__xss='imgmd')",
    "<iframe src=\"javascript:window.__xss='iframe'\"></iframe>",
    "<details open ontoggle=\"window.__xss='details'\">",
)
XSS_TEXT = "\n\n".join(XSS_PAYLOADS)

UI_MARKDOWN = ("Here is **bold** and *italic*.\n\n- first item\n- second item\n\n"
               "Run `pip install pyclient` then read [the docs](https://example.org/docs).\n\n"
               "<b>raw html</b> stays text.")


class _UiAgent:
    """`POST /agent/ui`: a deterministic AG-UI agent for the chat UI tests (web/tests/chat_ui.html).

    The latest user message names a scenario: "markdown" (`UI_MARKDOWN` in deltas), "xss"
    (`XSS_TEXT` as text, then a call of `echo` whose argument is `XSS_TEXT`), "xss error"
    (RUN_ERROR with `XSS_TEXT` as its message), "bidi" (a call of `echo` with a right-to-left
    override and a zero-width space), "approve" (a call of `send_mail`, which requires
    approval), "slow N" (N paragraphs, 0.1 s apart), "many N" (N parallel calls of `tick`),
    "big SIZE DELTAS" (one call of `echo` whose argument is SIZE characters in DELTAS deltas),
    "http error" (HTTP 503), "agent error" (RUN_ERROR), "fail once TOKEN" (HTTP 503 the first
    time, then text), "hold" (a text, then the stream stays open until the page goes away),
    "call NAME JSON" (one call of NAME with JSON arguments, in 4 chunks 0.15 s apart) and
    "backend" (a server-side call with its TOOL_CALL_RESULT). A follow-up (the last message is
    a tool message) answers "done: " and the results (their count past 5). Anything else gets
    "reply: <message>".
    """

    def __init__(self) -> None:
        self.failed_once: set[str] = set()

    async def __call__(self, scope, receive, send) -> None:
        import asyncio
        import uuid

        body = json.loads(await read_body(receive))
        messages = body["messages"]
        users = [m for m in messages if m["role"] == "user"]
        said = users[-1]["content"] if users else ""
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        message_id = f"m-{uuid.uuid4().hex[:8]}"
        plan: list[tuple[dict, float]] = [({"type": "RUN_STARTED", **ids}, 0)]  # (event, pause before)
        finish: dict | None = {"type": "RUN_FINISHED", **ids}

        def text(content: str, pieces: int = 4, pause: float = 0.0) -> None:
            plan.append(({"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}, 0))
            size = max(1, -(-len(content) // pieces))
            for i in range(0, len(content), size):
                plan.append(({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": content[i:i + size]},
                             pause))
            plan.append(({"type": "TEXT_MESSAGE_END", "messageId": message_id}, 0))

        def call(call_id: str, name: str, arguments: str, pieces: int = 2, pause: float = 0.0) -> None:
            plan.append(({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name,
                          "parentMessageId": message_id}, 0))
            size = max(1, -(-len(arguments) // pieces))
            for i in range(0, len(arguments), size):
                plan.append(({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": arguments[i:i + size]}, pause))
            plan.append(({"type": "TOOL_CALL_END", "toolCallId": call_id}, 0))

        status = 200
        hold = False
        words = said.split()
        if messages and messages[-1]["role"] == "tool":
            results = []
            for m in reversed(messages):
                if m["role"] != "tool":
                    break
                results.insert(0, m["content"])
            text("done: " + (" | ".join(results) if len(results) <= 5 else f"{len(results)} results"))
        elif said == "markdown":
            text(UI_MARKDOWN, pieces=6)
        elif said == "xss":
            text(XSS_TEXT)
            call(f"c-{uuid.uuid4().hex[:8]}", "echo", json.dumps({"text": XSS_TEXT}))
        elif said == "xss error":
            plan.append(({"type": "RUN_ERROR", "message": XSS_TEXT}, 0))
            finish = None
        elif said == "bidi":
            call(f"c-{uuid.uuid4().hex[:8]}", "echo", json.dumps({"text": "\u202eecila\u200b"}, ensure_ascii=False))
        elif said == "approve":
            text("I will send it once you approve.")
            call(f"c-{uuid.uuid4().hex[:8]}", "send_mail",
                 json.dumps({"to": "alice@example.org", "count": 2, "urgent": False, "tone": "calm"}))
        elif words[:1] == ["slow"]:
            text("".join(f"Paragraph {i} of a long answer.\n\n" for i in range(int(words[1]))),
                 pieces=int(words[1]), pause=0.1)
        elif words[:1] == ["many"]:
            for i in range(int(words[1])):
                call(f"tick-{i}", "tick", json.dumps({"n": i}))
        elif words[:1] == ["big"]:
            size, deltas = int(words[1]), int(words[2])
            call(f"big-{uuid.uuid4().hex[:8]}", "echo", json.dumps({"text": "x" * size}), pieces=deltas)
        elif said == "http error":
            status = 503
        elif said == "agent error":
            plan.append(({"type": "RUN_ERROR", "message": "the model is down", "code": "overloaded"}, 0))
            finish = None
        elif words[:2] == ["fail", "once"]:
            if said in self.failed_once:
                text("recovered")
            else:
                self.failed_once.add(said)
                status = 503
        elif said == "hold":
            text("Working on it")
            hold = True
        elif words[:1] == ["call"]:
            call(f"c-{uuid.uuid4().hex[:8]}", words[1], said.split(None, 2)[2], pieces=4, pause=0.15)
        elif said == "backend":
            call_id = f"b-{uuid.uuid4().hex[:8]}"
            call(call_id, "web_search", json.dumps({"query": "pyclient"}), pause=0.1)
            plan.append(({"type": "TOOL_CALL_RESULT", "messageId": f"r-{call_id}", "toolCallId": call_id,
                          "content": "3 results", "role": "tool"}, 0.1))
            text("Found 3 results.")
        else:
            text(f"reply: {said}")
        if status != 200:
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"the agent is overloaded", "more_body": False})
            return
        if finish is not None and not hold:
            plan.append((finish, 0))
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        for event, pause in plan:
            if pause:
                await asyncio.sleep(pause)
            await send({"type": "http.response.body", "body": f"data: {json.dumps(event)}\n\n".encode(),
                        "more_body": True})
        if hold:  # until the page goes away or stops
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})


@pytest.fixture(scope="session")
def live_server(runtime, agent_log, slow_log) -> Iterator[str]:
    """The dev server (pages, runtime, embedded agent) on a free port; yields its base URL.

    It also serves `GET /test/slow` (see `_slow_route`) for tests that abort a fetch, and
    `POST /agent/scripted` (see `_ScriptedAgent`) for the reload tests, and `POST /test/bad-agent`
    (see `_bad_agent_route`) for tests of hostile agent streams, and `POST /agent/declared`, a
    pydantic-ai agent that declares its client tools itself (`tests.servers.declared_agent`),
    and `POST /agent/ui` (see `_UiAgent`) for the chat UI tests.
    """
    from devserver.app import create_app

    from starlette.routing import Route

    from tests.servers.declared_agent import declared_endpoint

    app = create_app(runtime=runtime, extra_routes=[
        _slow_route(slow_log), Route("/agent/scripted", _ScriptedAgent(), methods=["POST"]), _bad_agent_route(),
        Route("/agent/declared", declared_endpoint(), methods=["POST"]),
        Route("/agent/ui", _UiAgent(), methods=["POST"]),
    ])
    with ServerThread(_RecordAgentBodies(app, agent_log)) as server:
        yield server.url


def pytest_collection_modifyitems(config, items):
    """Run the Chromium tests (tests/e2e/, and those marked `chromium`) last.

    Playwright's sync API keeps an event loop running in the main thread for the rest of
    the session once it starts, and the CPython tests call `asyncio.run()`, which refuses to
    run inside a running loop.
    """
    items.sort(key=lambda item: "/e2e/" in str(item.path).replace("\\", "/")
               or item.get_closest_marker("chromium") is not None)
