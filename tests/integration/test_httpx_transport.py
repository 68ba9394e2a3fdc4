"""HttpxTransport over real sockets: the pooled-connection retry, errors, abort."""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading

import pytest

from pyclient import (
    AbortController,
    HttpxTransport,
    Request,
    RunAborted,
    TransportError,
)

BODY = b'data: {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}\n\n'


class KeepAliveThenDrop:
    """Answers the first request of a connection (keep-alive), then reads the next request on
    that connection and closes it without answering: a pooled connection that died."""

    def __init__(self) -> None:
        self.requests = 0
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                served = 0
                while True:
                    length = 0
                    while True:
                        line = self.rfile.readline()
                        if not line:
                            return
                        if line in (b"\r\n", b"\n"):
                            break
                        name, _, value = line.decode("latin-1").partition(":")
                        if name.strip().lower() == "content-length":
                            length = int(value)
                    self.rfile.read(length)
                    outer.requests += 1
                    if served:
                        self.connection.shutdown(socket.SHUT_RDWR)
                        return
                    served += 1
                    self.connection.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        + f"Content-Length: {len(BODY)}\r\n\r\n".encode() + BODY)

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/agent"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def collect(transport, url, signal=None) -> bytes:
    chunks = []
    async for chunk in transport.stream(Request(url, {}, b"{}"), signal or AbortController().signal):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize("retries, expect_ok", [(1, True), (0, False)])
def test_retry_once_on_a_dead_pooled_connection(retries, expect_ok):
    server = KeepAliveThenDrop()

    async def main():
        transport = HttpxTransport(retries=retries)
        try:
            assert await collect(transport, server.url) == BODY
            if expect_ok:
                assert await collect(transport, server.url) == BODY
            else:
                with pytest.raises(TransportError, match="failed before a response") as info:
                    await collect(transport, server.url)
                assert info.value.status is None and info.value.__cause__ is not None
        finally:
            await transport.aclose()

    try:
        asyncio.run(asyncio.wait_for(main(), 10))
    finally:
        server.close()
    assert server.requests == (3 if expect_ok else 2)


def test_aborted_signal_stops_before_sending():
    controller = AbortController()
    controller.abort("stopped")

    async def main():
        transport = HttpxTransport()
        with pytest.raises(RunAborted):
            await collect(transport, "http://127.0.0.1:9/agent", controller.signal)
        await transport.aclose()

    asyncio.run(main())


def test_transport_reused_across_event_loops(closed_port):
    transport = HttpxTransport()
    for _ in range(2):  # each asyncio.run() has its own loop; the transport follows
        with pytest.raises(TransportError):
            asyncio.run(collect(transport, f"http://127.0.0.1:{closed_port}/agent"))
    asyncio.run(transport.aclose())
