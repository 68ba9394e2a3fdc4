"""The words of an agent URL that cannot answer, from a real client over HTTP: an error of the
agent behind `pyclient serve --agent` names that flag and the URL (never the page's `/agent`,
which is right), and a static file server that refuses POST (`python3 -m http.server`'s 501,
`pyclient serve`'s own static files' 405) says so, never "try again"."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator

import pytest

from pyclient import Agent, TransportError
from pyclient.browser._widgets._error_words import error_text
from pyclient.server import create_app
from pyclient.testing import ServerThread


def failed_run(url: str) -> TransportError:
    """The error of a run sent to `url` by a CPython thread (the same transport error the page's
    fetch transport raises)."""
    thread = Agent("words", url=url).thread()

    async def send() -> None:
        await thread.send("hello")

    asyncio.run(send())
    assert thread.run_status == "error" and isinstance(thread.error, TransportError), thread.error
    return thread.error


@pytest.fixture
def static_files(tmp_path) -> Iterator[str]:
    """`python3 -m http.server` on 127.0.0.1: it answers POST with 501."""
    handler = lambda *args: http.server.SimpleHTTPRequestHandler(*args, directory=str(tmp_path))  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_static_host_refusing_post_says_so_and_not_to_try_again(static_files):
    error = failed_run(static_files + "/agent")
    assert error.status == 501 and error.upstream is None
    assert error_text(error).startswith("The server at the agent URL does not take POST requests (HTTP 501)")
    assert "again" not in error_text(error).lower() and "retries" not in str(error)


def test_an_error_of_the_agent_behind_pyclient_serve_names_the_flag_and_its_url(tmp_path):
    with ServerThread(create_app(tmp_path, tmp_path)) as upstream:  # its static files answer POST with 405
        proxy = create_app(tmp_path, tmp_path, agent_url=f"{upstream.url}/agnet?key=secret")
        with ServerThread(proxy) as served:
            error = failed_run(f"{served.url}/agent")
    assert error.status == 405
    assert error.upstream == f"{upstream.url}/agnet"  # without its query: it may carry a secret
    assert error_text(error) == ("The agent behind this page's server (`pyclient serve --agent`) answered with an "
                                 "error (HTTP 405): that --agent URL may be wrong. Check it; the details name it.")
    assert f"the agent it forwards to, {upstream.url}/agnet (its --agent URL), answered HTTP 405" in str(error)
    assert "secret" not in str(error)


def test_the_page_servers_own_agent_error_names_no_upstream(tmp_path):
    with ServerThread(create_app(tmp_path, tmp_path)) as served:
        error = failed_run(f"{served.url}/agnet")  # a typo of the page's own agent URL
    assert error.status == 405 and error.upstream is None
    assert "--agent" not in error_text(error) and "--agent" not in str(error)
