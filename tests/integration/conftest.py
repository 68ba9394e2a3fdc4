"""Real AG-UI servers on free 127.0.0.1 ports, in background threads, for the run-loop tests.

- `agent_url`: the embedded pydantic-ai agent (`devserver.agent.agent_endpoint()`) at
  `/agent`, plus `/agent-500`, a route that always answers HTTP 500 with a text body.
- `langgraph_url`: the ag-ui-langgraph app (`tests.servers.langgraph_app.create_app()`).
- `flaky_server`: a raw socket server whose first answer sends the headers and a few SSE
  events, then drops the connection; later answers are complete AG-UI runs.
- `transport`: a fresh `RecordingTransport`, an `HttpxTransport` that keeps every request
  body it sent.
"""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devserver.background import ServerThread, free_port
from pyclient import HttpxTransport

ROOT = Path(__file__).resolve().parents[2]


class RecordingTransport(HttpxTransport):
    """An HttpxTransport that records the decoded JSON body of every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict] = []

    def stream(self, request, signal):
        self.bodies.append(json.loads(request.body))
        return super().stream(request, signal)


@pytest.fixture
def transport() -> RecordingTransport:
    """A fresh `RecordingTransport` for one test."""
    return RecordingTransport()


@pytest.fixture
def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on."""
    return free_port()


@pytest.fixture(scope="session")
def agent_url() -> Iterator[str]:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from devserver.agent import agent_endpoint

    async def always_500(request):
        await request.body()
        return PlainTextResponse("Internal Server Error: the agent crashed (test route)", status_code=500)

    app = Starlette(routes=[
        Route("/agent", agent_endpoint(), methods=["POST"]),
        Route("/agent-500", always_500, methods=["POST"]),
    ])
    with ServerThread(app) as server:
        yield server.url


@pytest.fixture(scope="session")
def langgraph_url() -> Iterator[str]:
    from tests.servers.langgraph_app import create_app

    with ServerThread(create_app()) as server:
        yield server.url


def read_request(rfile: Any) -> dict:
    """Read one HTTP request from `rfile` (headers, then a Content-Length body); its JSON body."""
    length = 0
    while True:
        line = rfile.readline()
        if line in (b"\r\n", b"\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(rfile.read(length))


class RawServer:
    """A threaded TCP server on a free 127.0.0.1 port whose `_handle(rfile, connection)` writes
    the raw HTTP answer (for what a well-behaved HTTP server never sends)."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                outer._handle(self.rfile, self.connection)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/agent"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handle(self, rfile: Any, connection: Any) -> None:
        raise NotImplementedError


def _sse(*events: dict) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)


class FlakyServer(RawServer):
    """Raw HTTP over sockets: answer 1 drops mid-stream, the others are complete runs.

    `mode` says how the first answer ends: "chunked" cuts a chunked body (the client sees a
    protocol error), "close" ends a `Connection: close` body in the middle of an event (the
    client sees a clean EOF without RUN_FINISHED).
    """

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def _handle(self, rfile, connection) -> None:
        body = read_request(rfile)
        self.bodies.append(body)
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        if len(self.bodies) == 1:
            events = _sse({"type": "RUN_STARTED", **ids},
                          {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                          {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "partial answer"})
            events += b'data: {"type": "TEXT_MESSAGE_CONT'
            if self.mode == "chunked":
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                   b"Transfer-Encoding: chunked\r\n\r\n"
                                   + f"{len(events):x}\r\n".encode() + events + b"\r\n")
            else:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                   b"Connection: close\r\n\r\n" + events)
            time.sleep(0.05)
            connection.shutdown(socket.SHUT_RDWR)
            return
        events = _sse({"type": "RUN_STARTED", **ids},
                      {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
                      {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2",
                       "delta": f"complete answer after {len(body['messages'])} messages"},
                      {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
                      {"type": "RUN_FINISHED", **ids})
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                           + f"Content-Length: {len(events)}\r\n\r\n".encode() + events)

    def __enter__(self) -> FlakyServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(params=["chunked", "close"])
def flaky_server(request) -> Iterator[FlakyServer]:
    with FlakyServer(request.param) as server:
        yield server
