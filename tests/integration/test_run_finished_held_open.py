"""A server that sends RUN_FINISHED and then holds the connection open, over real sockets.

The calls of the run must run on RUN_FINISHED, and the client must close the held
connection itself: waiting for the body to end would wait as long as the server likes.
"""

from __future__ import annotations

import asyncio
import socket
import threading

from pyclient import Agent, HttpxTransport, client_tool
from tests.helpers import ids, sse, tool_call
from tests.integration.conftest import RawServer, send_first_chunk, send_text_run


class HoldOpenServer(RawServer):
    """Answer 1: a tool call and RUN_FINISHED in a chunked body that never ends; the handler
    then waits for the client to close. Later answers: a complete text run."""

    def __init__(self) -> None:
        super().__init__()
        self.client_closed = threading.Event()

    def answer(self, connection: socket.socket, body: dict) -> None:
        if len(self.bodies) == 1:
            send_first_chunk(connection, sse({"type": "RUN_STARTED", **ids(body)},
                                             *tool_call("c1", "echo", {"text": "held"}),
                                             {"type": "RUN_FINISHED", **ids(body)}))
            # Hold the connection open: no final chunk. recv() returns b"" once the client closes.
            connection.settimeout(30)
            try:
                while connection.recv(1024):
                    pass
                self.client_closed.set()
            except OSError:
                pass
            return
        send_text_run(connection, body, "thanks")


def test_calls_run_on_run_finished_and_the_held_connection_is_closed():
    ran: list[str] = []

    @client_tool
    def echo(text: str) -> str:
        """Echo the text."""
        ran.append(text)
        return text

    async def main(url: str):
        transport = HttpxTransport(timeout=20)  # a guard: the test fails (not hangs) if pyclient waits
        thread = Agent("held", url, client_tools=[echo], transport=transport).thread()
        try:
            await asyncio.wait_for(thread.send("go"), 20)
        finally:
            await transport.aclose()
        return thread

    with HoldOpenServer() as server:
        thread = asyncio.run(main(server.url))
        assert server.client_closed.wait(10), "pyclient never closed the connection the server held open"
    assert thread.run_status == "idle" and thread.error is None
    assert ran == ["held"] and len(server.bodies) == 2
    assert [m["content"] for m in server.bodies[1]["messages"] if m["role"] == "tool"] == ["held"]
    assert thread.messages[-1].content == "thanks"
