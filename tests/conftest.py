"""Shared fixtures: the dev server on a free 127.0.0.1 port, started once per session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import settings

from devserver.background import ServerThread

# Hypothesis profiles for the property tests (tests/unit/test_properties_*.py). "ci" is loaded
# unless `--hypothesis-profile` names another: "deep" runs 10,000 examples per property. Timing
# never matters (deadline=None); examples stay random (derandomize=False), and a failure prints
# the seed and a blob to reproduce it. Under "ci" a slow property asks for fewer examples
# (`tests.unit.agui_streams.budget`): together they run a few thousand in about a minute.
settings.register_profile("ci", max_examples=1500, deadline=None, derandomize=False, print_blob=True)
settings.register_profile("deep", max_examples=10_000, deadline=None, derandomize=False, print_blob=True)


def pytest_configure(config: pytest.Config) -> None:
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
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        body = b"".join(chunks)
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


@pytest.fixture(scope="session")
def slow_log() -> SlowLog:
    return SlowLog()


@pytest.fixture(scope="session")
def live_server(runtime, agent_log, slow_log) -> Iterator[str]:
    """The dev server (pages, runtime, embedded agent) on a free port; yields its base URL.

    It also serves `GET /test/slow` (see `_slow_route`) for tests that abort a fetch.
    """
    from devserver.app import create_app

    app = create_app(runtime=runtime, extra_routes=[_slow_route(slow_log)])
    with ServerThread(_RecordAgentBodies(app, agent_log)) as server:
        yield server.url


def pytest_collection_modifyitems(config, items):
    """Run the Chromium tests last.

    Playwright's sync API keeps an event loop running in the main thread for the rest of
    the session once it starts, and the CPython tests call `asyncio.run()`, which refuses to
    run inside a running loop.
    """
    items.sort(key=lambda item: "/e2e/" in str(item.path).replace("\\", "/"))
