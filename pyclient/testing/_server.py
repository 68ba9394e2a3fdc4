"""Serving a `ScriptedAgent` over HTTP: an ASGI app, and uvicorn in a background thread on 127.0.0.1.

```python
import httpx
from pyclient.testing import ScriptedAgent

agent = ScriptedAgent()
agent.on("hello").say("Hi there")
with agent.serve() as url:                 # http://127.0.0.1:<free port>/agent
    body = {"threadId": "t", "runId": "r", "messages": [{"id": "u", "role": "user", "content": "hello"}],
            "tools": [], "context": [], "state": {}, "forwardedProps": {}}
    print(httpx.post(url, json=body).text.count("TEXT_MESSAGE_CONTENT"))   # 1
```
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ._response import PLAIN_TEXT, Responder, dropped, request_json, sse

__all__ = ["ServerThread", "agent_app", "read_body"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class _Dropped(Exception):
    """Raised inside the app to make uvicorn close the connection mid-body."""


def agent_app(agent: Responder, path: str = "/agent") -> ASGIApp:
    """An ASGI app answering `POST path` with the agent's scripted AG-UI stream (SSE).

    Written against the ASGI interface directly (no framework): one route, a streamed
    body, and a dropped connection on demand, which a framework's response classes hide.

    Args:
        agent: a `ScriptedAgent`, or anything whose `respond(body)` returns a `Response`.
        path: the endpoint's path.
    """

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["path"] != path or scope["method"] != "POST":
            await _plain(send, 404 if scope["path"] != path else 405, f"POST {path} is the AG-UI endpoint")
            return
        try:
            response = agent.respond(request_json(await read_body(receive)))
        except ValueError as exc:  # not JSON, or not a RunAgentInput
            await _plain(send, 422, f"not a RunAgentInput: {exc}")
            return
        if response.status != 200 or response.content_type is not None:
            await _plain(send, response.status, response.body, response.content_type or PLAIN_TEXT)
            return
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]})
        for index, event in enumerate(response.events):
            if response.drop_after is not None and index >= response.drop_after:
                raise _Dropped(str(dropped(index)))
            if response.delay_s:
                await asyncio.sleep(response.delay_s)
            await response.wait_before(index)
            await send({"type": "http.response.body", "body": sse(event), "more_body": True})
        if response.hold:  # open until the client goes away (a reload, a Stop)
            while (await receive())["type"] != "http.disconnect":
                pass
            return
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    return app


async def read_body(receive: Receive) -> bytes:
    """The whole body of an ASGI HTTP request, however many messages it came in."""
    chunks, more = [], True
    while more:
        message = await receive()
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    return b"".join(chunks)


async def _plain(send: Send, status: int, text: str, content_type: str = PLAIN_TEXT) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type.encode())]})
    await send({"type": "http.response.body", "body": text.encode()})


class ServerThread:
    """Runs an ASGI app with uvicorn in a daemon thread on 127.0.0.1; a context manager.

    Args:
        app: the ASGI app.
        port: the port; 0 (the default) picks a free one.
        log_level: uvicorn's log level ("warning": a crashing app is reported; the scripted
            agent passes "critical", since its scripted dropped connections raise on purpose).

    Attributes:
        url: `http://127.0.0.1:<port>`.
    """

    def __init__(self, app: Any, port: int = 0, *, log_level: str = "warning") -> None:
        import uvicorn

        # Bound here, before the thread starts: no other process can take the port meanwhile.
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", port))
        self.port: int = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off",
                                timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> ServerThread:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()
