"""Shared fixtures: the dev server on a free 127.0.0.1 port, started once per session."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from devserver.background import ServerThread


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
    """What `GET /test/slow` saw: one entry per request, "completed" or "disconnected"."""

    outcomes: list[str] = field(default_factory=list)


def _slow_route(log: SlowLog):
    """`GET /test/slow?seconds=S`: a body that trickles for S seconds (for abort tests)."""
    import asyncio

    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    async def slow(request):
        seconds = float(request.query_params.get("seconds", "5"))

        async def body():
            outcome = "disconnected"
            try:
                for _ in range(int(seconds * 20)):
                    yield b"."
                    await asyncio.sleep(0.05)
                outcome = "completed"
            finally:  # cancelled when the client goes away
                log.outcomes.append(outcome)

        return StreamingResponse(body(), media_type="text/plain")

    return Route("/test/slow", slow)


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
