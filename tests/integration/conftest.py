"""Real AG-UI servers on free 127.0.0.1 ports, in background threads, for the run-loop tests.

- `agent_url`: the embedded pydantic-ai agent (`devserver.agent.agent_endpoint()`) at
  `/agent`, plus `/agent-500`, a route that always answers HTTP 500 with a text body.
- `langgraph_url`: the ag-ui-langgraph app (`tests.agents.langgraph_app.create_app()`).
- `flaky_server`: a raw socket server whose first answer sends the headers and a few SSE
  events, then drops the connection; later answers are complete AG-UI runs.
- `served_app(module, record)`: a fixture serving one of the test agents (`tests/agents/`),
  for a test module to name.
- `transport`: a fresh `RecordingTransport`, an `HttpxTransport` that keeps every request
  body it sent.
- `installed_wheel`: pyclient's wheel, built once per session from a copy of the sources and
  installed with the `server` and `testing` extras in a fresh virtual environment (shared by
  tests/integration/test_testing_wheel.py and test_wheel_to_page.py: about 40 s, once).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import socket
import socketserver
import subprocess
import sys
import threading
import time
import venv
from collections.abc import Iterator
from contextlib import aclosing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Self

import pytest

from devserver.background import ServerThread, free_port
from pyclient import HttpxTransport
from tests.helpers import ids, sse

ROOT = Path(__file__).resolve().parents[2]


class RecordingTransport(HttpxTransport):
    """An HttpxTransport that records the decoded JSON body of every request it sends, and how
    the client stopped reading each response: `ends[i]` is None while it is read, then
    "complete" (to its end) or "closed" (before: a stop, an abandoned request)."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict] = []
        self.ends: list[str | None] = []

    async def stream(self, request, signal):
        index = len(self.bodies)
        self.bodies.append(json.loads(request.body))
        self.ends.append(None)
        end = "closed"
        try:
            async with aclosing(super().stream(request, signal)) as chunks:
                async for chunk in chunks:
                    yield chunk
            end = "complete"
        finally:
            self.ends[index] = end


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 600) -> str:
    """Run a command; fail with its output when it fails; its stdout."""
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{args[:4]} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


@dataclass(frozen=True)
class InstalledWheel:
    """pyclient's wheel and the fresh virtual environment it is installed in.

    Attributes:
        wheel: the built wheel file.
        bin: the environment's `bin/` (`python`, `pyclient`, `pytest`).
    """

    wheel: Path
    bin: Path

    @property
    def python(self) -> Path:
        return self.bin / "python"

    def env(self, runtime: Path) -> dict[str, str]:
        """An environment for the venv's commands: nothing of this checkout's Python settings, the
        runtime built in `runtime` (a copy of the session's, so nothing is downloaded)."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV"))}
        env["PYCLIENT_RUNTIME_DIR"] = str(runtime)
        return env


@pytest.fixture(scope="session")
def installed_wheel(tmp_path_factory: pytest.TempPathFactory) -> InstalledWheel:
    # The wheel, built from a copy of the sources (pip builds in place: the checkout stays clean).
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "pyclient", source / "pyclient", ignore=shutil.ignore_patterns("__pycache__"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
        "-w", tmp / "dist", source, cwd=tmp)
    wheel = next((tmp / "dist").glob("pyclient_agui-*.whl"))
    venv.create(tmp / "venv", with_pip=True)
    bin_dir = tmp / "venv" / "bin"
    # No .pyc compiled for the hundreds of installed modules: the tests import a few of them.
    run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile",
        f"{wheel}[server,testing]", cwd=tmp)
    return InstalledWheel(wheel, bin_dir)


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
    from tests.agents.langgraph_app import create_app

    with ServerThread(create_app()) as server:
        yield server.url


def served_app(module: str, record: str, *, path: str = "/agent", scope: Literal["function", "module"] = "function"):
    """A fixture serving `module.create_app()` in a background thread (for each test, or once
    for the module): it yields the URL of the app's `path` and what the app records
    (`app.state.<record>`). The module is imported only when a test asks for the fixture."""

    @pytest.fixture(scope=scope)
    def served() -> Iterator[tuple[str, Any]]:
        app = importlib.import_module(module).create_app()
        with ServerThread(app) as server:
            yield server.url + path, getattr(app.state, record)

    return served


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
    """A threaded TCP server on a free 127.0.0.1 port, served in a `with` block, that reads each
    request (its body appended to `bodies`) and lets `answer(connection, body)` write the raw
    HTTP answer (for what a well-behaved HTTP server never sends)."""

    def __init__(self) -> None:
        self.bodies: list[dict] = []
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                body = read_request(self.rfile)
                outer.bodies.append(body)
                outer.answer(self.connection, body)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/agent"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, connection: socket.socket, body: dict) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


SSE_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
"""The status line and the content type of every raw answer; its other headers follow."""


def send_first_chunk(connection: socket.socket, events: bytes) -> None:
    """Send the head of a chunked body and `events` as its first chunk: the body does not end."""
    connection.sendall(SSE_HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + f"{len(events):x}\r\n".encode()
                       + events + b"\r\n")


def send_text_run(connection: socket.socket, body: dict, text: str) -> None:
    """Answer `body` with a complete run that says `text` (message m2), its length given."""
    events = sse({"type": "RUN_STARTED", **ids(body)},
                 {"type": "TEXT_MESSAGE_START", "messageId": "m2", "role": "assistant"},
                 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": text},
                 {"type": "TEXT_MESSAGE_END", "messageId": "m2"},
                 {"type": "RUN_FINISHED", **ids(body)})
    connection.sendall(SSE_HEAD + f"Content-Length: {len(events)}\r\n\r\n".encode() + events)


class FlakyServer(RawServer):
    """Raw HTTP over sockets: answer 1 drops mid-stream, the others are complete runs.

    `mode` says how the first answer ends: "chunked" cuts a chunked body (the client sees a
    protocol error), "close" ends a `Connection: close` body in the middle of an event (the
    client sees a clean EOF without RUN_FINISHED).
    """

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def answer(self, connection: socket.socket, body: dict) -> None:
        if len(self.bodies) == 1:
            events = sse({"type": "RUN_STARTED", **ids(body)},
                         {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                         {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "partial answer"})
            events += b'data: {"type": "TEXT_MESSAGE_CONT'
            if self.mode == "chunked":
                send_first_chunk(connection, events)
            else:
                connection.sendall(SSE_HEAD + b"Connection: close\r\n\r\n" + events)
            time.sleep(0.05)
            connection.shutdown(socket.SHUT_RDWR)
            return
        send_text_run(connection, body, f"complete answer after {len(body['messages'])} messages")


@pytest.fixture(params=["chunked", "close"])
def flaky_server(request) -> Iterator[FlakyServer]:
    with FlakyServer(request.param) as server:
        yield server
