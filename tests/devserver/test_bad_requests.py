"""serve.py's app under hostile requests: odd paths answer 4xx, never 500; a trickling body is cut off."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

import httpx
import pytest

from devserver.app import create_app
from devserver.background import ServerThread

BODY_TIMEOUT = 0.5


@pytest.fixture(scope="module")
def server(runtime):
    with ServerThread(create_app(runtime=runtime, body_timeout=BODY_TIMEOUT)) as running:
        yield running.url


@pytest.mark.parametrize("path", ["/%00", "/pyodide/%00.js", "/a%00b/index.html"])
def test_a_nul_byte_in_the_path_answers_400(server, path):
    response = httpx.get(server.rstrip("/") + path)
    assert response.status_code == 400


@pytest.mark.parametrize("prefix", ["/", "/pyodide/", "/pyscript/"])
def test_a_5000_character_path_answers_414(server, prefix):
    response = httpx.get(server.rstrip("/") + prefix + "a" * 5_000)
    assert response.status_code == 414


def test_a_path_the_file_system_refuses_answers_404(server):
    # Under the length limit but with a name segment longer than the file system's NAME_MAX.
    response = httpx.get(server.rstrip("/") + "/" + "b" * 300 + "/x.html")
    assert response.status_code == 404


def test_a_request_body_that_trickles_is_cut_off_with_408(server):
    url = urlsplit(server)
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        sock.sendall(b"POST /agent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"threadId\"")
        # Nothing more is sent: the server must answer on its own (the socket timeout is a guard).
        received = b""
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    status_line = received.split(b"\r\n", 1)[0]
    assert status_line.startswith(b"HTTP/1.1 408"), received[:200]


def test_a_body_that_arrives_in_time_is_served(server):
    response = httpx.post(server.rstrip("/") + "/agent", content=b"{}", headers={"Content-Type": "application/json"})
    assert response.status_code == 422  # read in full and judged: not a RunAgentInput
