"""Shared fixtures: the dev server on a free 127.0.0.1 port, started once per session."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import settings

from devserver.background import ServerThread
from pyclient.testing import read_body
from tests.helpers import run_to_end, wait_for

pytest_plugins = ["tests.suite_report"]

# Hypothesis profiles for the property tests (tests/unit/*/test_properties_*.py). "ci" is loaded
# unless `--hypothesis-profile` names another: "deep" runs 10,000 examples per property. Timing
# never matters (deadline=None). "ci" is derandomized: the same few thousand examples every run,
# so a landing never depends on the draw (the slow properties ask for fewer:
# `tests.unit.conversation.agui_streams.budget`); "deep" draws new examples each run to explore,
# and a failure prints a blob to reproduce it.
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


# What pyclient logs, and goes on, when a page author's callback raises or a save fails: a
# broken listener must not break the run, so a test whose listener raised (an assertion, a
# typo) would pass anyway. `callback_errors` fails such a test. The exact format strings, and
# where each is logged:
CALLBACK_ERRORS = (
    # pyclient/_base/_listeners.py, Listeners.notify and Listeners.send: a `thread.subscribe()` callback
    "pyclient: a thread listener raised on %s",
    # pyclient/_base/_listeners.py, Listeners.event: a callback of each AG-UI event
    "pyclient: a thread listener raised on event",
    # pyclient/browser/_widgets/_cards.py, ToolCard._render: a tool renderer raised (the card shows a fallback)
    "pyclient: the renderer of tool %r raised on call %s",
    # pyclient/browser/_widgets/_interrupt_cards.py, InterruptCard._render: an interrupt renderer raised (a fallback)
    "pyclient: the interrupt renderer of %r raised on interrupt %s",
    # pyclient/browser/_widgets/_activity_cards.py, ActivityCard.update: an activity renderer raised (a fallback)
    "pyclient: the activity renderer of %r raised on activity %s",
    # pyclient/browser/_widgets/_state_view.py, StateView.update: the state renderer raised (a fallback)
    "pyclient: the state renderer raised in thread %s",
    # pyclient/_api/_thread.py, Thread._save_loop: the store's save() raised (a warning)
    "pyclient: saving thread %s failed: %s",
)
# The same messages as the page's console shows them (formatted, after a logger name and level).
_CALLBACK_ERROR_TEXT = re.compile("|".join(
    ".*?".join(re.escape(piece) for piece in re.split(r"%[sr]", template)) for template in CALLBACK_ERRORS))


class _CallbackErrors(logging.Handler):
    """Collects the records of `CALLBACK_ERRORS` from the "pyclient" logger, and page console texts."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.found: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.msg in CALLBACK_ERRORS:
            text = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                text += f" ({type(record.exc_info[1]).__name__}: {record.exc_info[1]})"
            self.found.append(text)

    def console(self, message) -> None:
        if _CALLBACK_ERROR_TEXT.search(message.text):
            self.found.append(f"in the page: {message.text}")


_current: list[_CallbackErrors] = []   # the running test's collector, for page consoles
_watched: set[int] = set()             # the browser contexts whose console is watched


def _watch(context) -> None:
    if id(context) in _watched:
        return
    _watched.add(id(context))
    context.on("close", lambda _context: _watched.discard(id(context)))
    context.on("console", lambda message: _current and _current[-1].console(message))


@pytest.fixture(scope="session")
def watch_callback_errors():
    """`watch_callback_errors(context)`: report the callback errors shown in the console of a
    Playwright browser context's pages (every tab, for as long as it lives) to the running test's
    `callback_errors` check. The contexts of pytest-playwright's `context` and the plugin's
    `pyclient_context` are watched already; a fixture that opens its own context calls this."""
    return _watch


@pytest.fixture(autouse=True)
def callback_errors(request):
    """Fail the test if a listener, a renderer or a save raised (`CALLBACK_ERRORS`), in CPython or
    in a page of a watched browser context; a test that makes one raise on purpose is marked
    `@pytest.mark.callback_errors_expected`, and then fails if none did. Yields what was found."""
    collector = _CallbackErrors()
    logger = logging.getLogger("pyclient")
    logger.addHandler(collector)
    _current.append(collector)
    for name in ("context", "pyclient_context"):   # pytest-playwright's and pyclient's plugin's
        if name in request.fixturenames:
            _watch(request.getfixturevalue(name))
    try:
        yield collector.found
    finally:
        logger.removeHandler(collector)
        _current.remove(collector)
    expected = request.node.get_closest_marker("callback_errors_expected") is not None
    if collector.found and not expected:
        pytest.fail(
            f"{len(collector.found)} callback error(s) were logged and swallowed during the test:\n"
            + "\n".join(f"  {text[:500]}" for text in collector.found[:5])
            + "\nFix the callback, or mark a test that raises on purpose `@pytest.mark.callback_errors_expected`.",
            pytrace=False)
    if expected and not collector.found:
        pytest.fail("The test is marked `callback_errors_expected`, but no listener, renderer or save raised: "
                    "remove the marker.", pytrace=False)


@dataclass
class AgentLog:
    """Every request body that reached `POST /agent*`, decoded, in arrival order, and how the
    response to each ended: `ends[i]` is None while it streams, then "completed" (the agent sent
    all of it) or "disconnected" (the client went away first: a stop, a reload)."""

    bodies: list[dict] = field(default_factory=list)
    ends: list[str | None] = field(default_factory=list)
    cleared: int = 0   # how many times `clear()` ran: a response that ends after one is not recorded

    def clear(self) -> None:
        self.bodies.clear()
        self.ends.clear()
        self.cleared += 1

    def wait_for_end(self, index: int, timeout_s: float = 20.0) -> str:
        """Wait until the response to request `index` has ended; return how ("completed", "disconnected")."""
        wait_for(lambda: len(self.ends) > index and self.ends[index] is not None, timeout_s,
                 f"the end of the response to agent request {index}")
        return self.ends[index]


class _RecordAgentBodies:
    """ASGI middleware that records agent request bodies so tests can assert on them."""

    def __init__(self, app, log: AgentLog) -> None:
        self.app, self.log = app, log

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["method"] != "POST" or not scope["path"].startswith("/agent"):
            return await self.app(scope, receive, send)
        body = await read_body(receive)
        index, cleared = len(self.log.bodies), self.log.cleared
        self.log.ends.append(None)
        try:
            self.log.bodies.append(json.loads(body))
        except ValueError:
            self.log.bodies.append({"_raw": body.decode(errors="replace")})
        sent, end = False, "disconnected"

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        try:
            end = await run_to_end(self.app, scope, replay, send)
        finally:
            if self.log.cleared == cleared:
                self.log.ends[index] = end


@pytest.fixture(scope="session")
def runtime():
    """The browser runtime, built (or confirmed up to date) once per session."""
    from devserver.assets import build

    return build()


@pytest.fixture(scope="session")
def pyclient_runtime(runtime):
    """The plugin's runtime is this checkout's (`runtime/`): one build serves every test."""
    return runtime


@pytest.fixture(scope="session")
def pyclient_site(pyclient_site_dir, pyclient_runtime, pytestconfig):
    """The plugin's `pyclient_site`, its Pyodide boots counted for `--suite-report`."""
    from pyclient.testing import ServerThread, Site
    from tests.suite_report import BootCounter

    site = Site(pyclient_site_dir, pyclient_runtime, str(pytestconfig.getini("pyclient_agent_path")))
    with ServerThread(BootCounter(site)) as server:
        site.url = server.url
        yield site
        site.url = None


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


def _probe_route(log: list[str]):
    """`/test/probe/...`, any method: records the path in `log` (a request a sandbox must never make)."""
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def probe(request):
        log.append(request.url.path)
        return PlainTextResponse("reached", headers={"access-control-allow-origin": "*"})

    return Route("/test/probe/{rest:path}", probe, methods=["GET", "POST", "PUT", "HEAD"])


DEEP_JSON = "[" * 10_000 + "]" * 10_000
HUGE_INT = "7" * 5_000
NESTED_OK_DEPTH = 39  # with the event's own object: pyclient._base._json.MAX_DEPTH


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


@pytest.fixture(scope="session")
def probe_log() -> list[str]:
    """The paths `/test/probe/...` on the live server was asked for."""
    return []


@pytest.fixture(scope="session")
def approval_log():
    """What `POST /agent/approval` (a pydantic-ai agent whose backend tool needs approval) saw."""
    from tests.agents.approval_agent import ApprovalLog

    return ApprovalLog()


@pytest.fixture(scope="session")
def media_log():
    """What `POST /agent/media` (a pydantic-ai agent whose model records the files it gets) saw."""
    from tests.agents.media_agent import MediaLog

    return MediaLog()


@pytest.fixture(scope="session")
def langgraph_interrupts():
    """The LangGraph interrupt app mounted at `/lg` (`/lg/agent`: legacy channel,
    `/lg/agent-outcome`: 1.0 outcome); its `state.log` records what it saw."""
    from tests.agents.langgraph_interrupt_app import create_app

    return create_app()


@pytest.fixture(scope="session")
def live_server(runtime, agent_log, slow_log, approval_log, media_log, langgraph_interrupts, probe_log) -> Iterator[str]:
    """The dev server (pages, runtime, embedded agent) on a free port; yields its base URL.

    It also serves `GET /test/slow` (see `_slow_route`) for tests that abort a fetch, `/test/probe/...`
    (`_probe_route`, recorded in `probe_log`) for requests that must not be made, and `POST /test/bad-agent`
    (see `_bad_agent_route`) for tests of hostile agent streams, `POST /agent/declared`, a
    pydantic-ai agent that declares its client tools itself (`tests.agents.declared_agent`),
    `POST /agent/approval`, one whose backend tool needs approval (`tests.agents.approval_agent`),
    `POST /agent/media`, one whose model records the files it receives (`tests.agents.media_agent`),
    and the LangGraph interrupt app under `/lg` (`tests.agents.langgraph_interrupt_app`).
    """
    from starlette.routing import Mount, Route

    from devserver.app import create_app
    from tests.agents.approval_agent import approval_endpoint
    from tests.agents.declared_agent import declared_endpoint
    from tests.agents.media_agent import media_endpoint

    app = create_app(runtime=runtime, extra_routes=[
        _slow_route(slow_log), _bad_agent_route(), _probe_route(probe_log),
        Route("/agent/declared", declared_endpoint(), methods=["POST"]),
        Route("/agent/approval", approval_endpoint(approval_log), methods=["POST"]),
        Route("/agent/media", media_endpoint(media_log), methods=["POST"]),
        Mount("/lg", app=langgraph_interrupts),
    ])
    from devserver.app import WEB
    from pyclient.testing._worker_pages import WorkerPages
    from tests.suite_report import BootCounter

    from pyclient.server._page_errors import SERVE_MARK

    # Its worker-mode pages carry what the app's own pages do: the mark of `pyclient serve`.
    pages = WorkerPages(_RecordAgentBodies(app, agent_log), WEB, headers=[(b"server-timing", SERVE_MARK.encode())])
    with ServerThread(BootCounter(pages)) as server:
        yield server.url


def _in_chromium(item) -> bool:
    return "/e2e/" in str(item.path).replace("\\", "/") or item.get_closest_marker("chromium") is not None


# The Chromium modules that take longest (`./dev test --suite-report`), run first: `./dev test`
# runs the Chromium suite on three xdist workers one module at a time (`--dist loadfile`, in this
# order), and a long module taken last keeps one worker busy while the others have nothing left.
# A stale list only packs the workers less well.
LONGEST_FIRST = (
    "e2e/test_chat_ui.py", "e2e/test_reload.py", "integration/test_wheel_to_page.py",
    "e2e/test_thread_list.py", "e2e/test_interrupts_chat.py", "e2e/test_elements.py",
    "e2e/test_startup_errors.py", "e2e/test_shell.py", "e2e/test_csp.py", "e2e/test_stream_chat.py",
    "e2e/test_interrupt_reload.py", "e2e/test_long_thread.py", "e2e/test_attachments_chat.py",
)


def _run_order(item) -> tuple[bool, int]:
    path = str(item.path).replace("\\", "/")
    rank = next((i for i, name in enumerate(LONGEST_FIRST) if path.endswith("/tests/" + name)), len(LONGEST_FIRST))
    return _in_chromium(item), rank


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Mark every Chromium test `chromium` (tests/e2e/ and the tests marked so elsewhere), and run
    them last, the longest modules first (`LONGEST_FIRST`).

    The mark lets `./dev test` run the two suites side by side (`-m chromium`, `-m "not
    chromium"`); it is added before every other implementation, so `-m` sees it. The sort:
    Playwright's sync API keeps an event loop running in the main thread for the rest of the
    session once it starts, and the CPython tests call `asyncio.run()`, which refuses to run
    inside a running loop. It comes after all other implementations, since pytest's own reorders
    the items by their module-scoped parameters (the e2e `mode`) and would undo a sort made earlier.
    """
    for item in items:
        if _in_chromium(item):
            item.add_marker(pytest.mark.chromium)
    result = yield
    items.sort(key=_run_order)   # stable: each module keeps its own order
    return result
