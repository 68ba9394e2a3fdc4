"""A client that hangs up in the middle of its request body gets one quiet log line from
`pyclient serve`'s app, not an ERROR with starlette's `ClientDisconnect` traceback: the app on
uvicorn on 127.0.0.1, a raw socket that sends half a body and closes, the log records taken
from the app's logger and uvicorn's."""

from __future__ import annotations

import logging
import socket

import httpx
import pytest

from pyclient.server import create_app
from pyclient.testing import ServerThread
from tests.helpers import wait_for

DECLARED = 1_000
SENT = 500


def hang_up_mid_body(port: int, path: str) -> None:
    """POST `path` with `Content-Length: DECLARED`, send `SENT` bytes of it, and hang up; return
    once the server has closed its side: it has handled the hang-up (the barrier for "and then
    nothing else was logged")."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                     f"Content-Length: {DECLARED}\r\n\r\n".encode() + b"{" + b" " * (SENT - 1))
        sock.shutdown(socket.SHUT_WR)   # the client's end of the body, short of what it declared
        while sock.recv(4096):          # until the server closes: it answers nothing
            pass


class Records(logging.Handler):
    """Every record of the app's logger ("pyclient.server") and of uvicorn's ("uvicorn", where
    "uvicorn.error" propagates, and which does not propagate to the root), from `watch()` on:
    after uvicorn configured its logging (`ServerThread()`), which replaces its handlers."""

    NAMES = ("pyclient.server", "uvicorn")

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seen: list[logging.LogRecord] = []
        self.levels = {name: logging.getLogger(name).level for name in self.NAMES}

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record)

    def watch(self) -> None:
        for name in self.NAMES:
            logging.getLogger(name).addHandler(self)
        logging.getLogger("pyclient.server").setLevel(logging.DEBUG)

    def close(self) -> None:
        for name, level in self.levels.items():
            logging.getLogger(name).removeHandler(self)
            logging.getLogger(name).setLevel(level)
        super().close()


@pytest.fixture
def records():
    kept = Records()
    yield kept
    kept.close()


@pytest.mark.parametrize("agent_url", [None, "http://127.0.0.1:9/agent"], ids=["embedded agent", "proxy"])
def test_a_client_hanging_up_mid_body_is_one_quiet_line_without_a_traceback(tmp_path, records, agent_url):
    app = create_app(tmp_path, tmp_path, agent_url=agent_url)
    server = ServerThread(app)
    records.watch()
    with server:
        hang_up_mid_body(server.port, "/agent")
        wait_for(lambda: any(r.name == "pyclient.server" for r in records.seen), 10, "the app's line")
        # A barrier: a later request's line. Whatever uvicorn logs for the connection that hung
        # up, it logged before it closed it, which came before this request.
        httpx.get(server.url + "/barrier.txt")
        wait_for(lambda: any("/barrier.txt" in r.getMessage() for r in records.seen), 10, "the barrier's line")
    seen = [r for r in records.seen if "/barrier.txt" not in r.getMessage()]
    lines = [(r.name, r.levelname, r.getMessage()) for r in seen]
    assert [r for r in seen if r.levelno >= logging.WARNING] == [], lines
    assert [r for r in seen if r.exc_info] == [], lines
    (line,) = [r for r in seen if r.name == "pyclient.server"]
    assert line.levelno == logging.INFO
    message = line.getMessage()
    assert message.startswith("POST /agent in ") and "\n" not in message
    assert message.endswith(f": the client hung up after {SENT} of its {DECLARED} body bytes; nothing was answered"), \
        message


def test_a_complete_body_is_still_answered_and_logged_as_before(tmp_path, records):
    server = ServerThread(create_app(tmp_path, tmp_path))
    records.watch()
    with server:
        response = httpx.post(server.url + "/agent", content=b"{}", headers={"content-type": "text/plain"})
        wait_for(lambda: any(r.name == "pyclient.server" for r in records.seen), 10, "the app's line")
    assert response.status_code == 415
    (line,) = [r for r in records.seen if r.name == "pyclient.server"]
    assert line.levelno == logging.WARNING and "POST /agent 415 in" in line.getMessage()
