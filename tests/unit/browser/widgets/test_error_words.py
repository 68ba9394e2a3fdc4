"""What a failed run says, on CPython: every message the transports and the run loop can produce
for the chat (its "Details"), the bubble's sentence (`error_text`) and the console line, each
ending with one full stop and none with two; "try again" only where trying again can pass; the
agent server's log only where it holds the cause; CORS named for a failed cross-origin request.

The errors come from the builders the transports share (`pyclient._wire._transport`), the exceptions
that word themselves (`RunError`, `FollowUpLimitError`), the testing kit's scripted drop, a real
`HttpxTransport` refused a connection, and the run loop fed broken streams (what ends up in
`thread.error`), each with inputs that end with a period and inputs that do not.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

from pyclient import (
    FollowUpLimitError,
    HttpxTransport,
    MockTransport,
    RunError,
    TransportError,
)
from pyclient._base._abort import AbortController
from pyclient._base._errors import clause
from pyclient._wire._transport import (
    AGUI_PROTOBUF,
    MockHTTPResponse,
    Request,
    check_event_stream,
    connection_dropped,
    connection_failed,
    http_error,
)
from pyclient.browser._widgets._error_words import console_line, error_text
from pyclient.testing import ScriptedAgent
from tests.helpers import ANY, agent_for, arun, ids, sse

URL = "http://127.0.0.1:8001/agent"
PAGE = "http://127.0.0.1:8000"
REQUEST = Request(URL)
STATUSES = (301, 400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429, 500, 502, 503, 504)
# Can pass on its own, so "try again" is honest: the network, the server's own failure, a busy
# server, a request that timed out on the way.
PASSING = {408, 429, 500, 502, 503, 504}
BODIES = ("", "Not Found", "Method Not Allowed.", "Internal Server Error.\n", '{"detail": "Not Found"}',
          "x" * 600 + ".")
CAUSES = ("ConnectError: All connection attempts failed", "TypeError: Failed to fetch",
          "RemoteProtocolError: Server disconnected without sending a response.")
AGENT_MESSAGES = ("Connection error.", "the model is down", "Rate limit reached. Try later...", "(no message)", "")


def _stream_errors() -> list[BaseException]:
    """What the run loop leaves in `thread.error` for each way a stream can break."""
    run_started = lambda body: {"type": "RUN_STARTED", **ids(body)}  # noqa: E731
    streams = {
        "ends mid-event": lambda body: sse(run_started(body)) + b'data: {"type": "TEXT_MES',
        "ends before RUN_FINISHED": lambda body: sse(run_started(body)),
        "not JSON": lambda body: sse(run_started(body), "<html>oops.</html>"),
        "not an event": lambda body: sse(run_started(body), "[1, 2]"),
        "nested too deep": lambda body: sse(run_started(body), '{"type": "STATE_SNAPSHOT", "snapshot": '
                                            + "[" * 5000 + "]" * 5000 + "}"),
        "a huge number": lambda body: sse(run_started(body), '{"type": "STATE_SNAPSHOT", "snapshot": '
                                          + "7" * 5000 + "}"),
        "a delta that does not apply": lambda body: sse(run_started(body), {
            "type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/missing", "value": 1}]}),
        "RUN_ERROR": lambda body: sse(run_started(body), {"type": "RUN_ERROR", "message": "Connection error."}),
    }
    errors: list[BaseException] = []
    for name, stream in streams.items():
        thread = agent_for(MockTransport(lambda request, stream=stream: stream(json.loads(request.body)))).thread()
        arun(thread.send("hi"))
        assert thread.run_status == "error" and thread.error is not None, name
        errors.append(thread.error)
    for status in STATUSES:  # through the mock transport, as a test's server would answer
        thread = agent_for(MockTransport(lambda request, status=status: MockHTTPResponse(status, b"No."))).thread()
        arun(thread.send("hi"))
        errors.append(thread.error)
    scripted = ScriptedAgent()
    scripted.on(ANY).say("hello there").drop(after=2)
    thread = agent_for(scripted).thread()
    arun(thread.send("hi"))
    errors.append(thread.error)
    return errors


def _refused_by_httpx() -> BaseException:
    """A real connection failure on CPython: a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    async def run() -> BaseException:
        transport = HttpxTransport(timeout=5)
        try:
            async for _ in transport.stream(Request(f"http://127.0.0.1:{port}/agent"), AbortController().signal):
                pass
        except TransportError as exc:
            return exc
        finally:
            await transport.aclose()
        raise AssertionError("the request to a closed port succeeded")

    return arun(run())


def _not_event_streams() -> list[BaseException]:
    """What `check_event_stream` raises for answers that are not an event stream."""
    errors: list[BaseException] = []
    for content_type in ("text/html; charset=utf-8", "application/json.", None, " ", AGUI_PROTOBUF):
        with pytest.raises(TransportError) as raised:
            check_event_stream(REQUEST, 200, content_type)
        errors.append(raised.value)
    return errors


def every_error() -> list[BaseException]:
    """Every kind of error a run can end with, as the chat gets it."""
    errors: list[BaseException] = [http_error(REQUEST, status, body) for status in STATUSES for body in BODIES]
    errors += [connection_failed(REQUEST, cause, before_response=before, page_origin=origin)
               for cause in CAUSES for before in (False, True) for origin in (None, PAGE)]
    errors += [connection_dropped(REQUEST, 120, cause) for cause in CAUSES]
    errors += [RunError(message, code) for message in AGENT_MESSAGES for code in (None, "overloaded")]
    errors += [FollowUpLimitError(10, ["change_background", "read_page"]), RuntimeError("boom")]
    errors += _stream_errors()
    errors += _not_event_streams()
    errors.append(_refused_by_httpx())
    return errors


ERRORS = every_error()


def one_sentence_end(text: str) -> bool:
    return text.endswith(".") and not text.endswith("..")


# The ids without a port number: the same in every pytest process (pytest-xdist compares them).
@pytest.mark.parametrize("error", ERRORS, ids=lambda error: re.sub(r":\d+/", ":PORT/",
                                                                  f"{type(error).__name__}:{str(error)[:60]}"))
def test_every_message_ends_with_one_period_and_none_has_two(error):
    messages = {"the bubble": error_text(error), "the console": console_line("t1", error)}
    if not isinstance(error, RuntimeError):  # pyclient's own words, shown in the bubble's details
        messages["the details"] = str(error)
    for where, text in messages.items():
        assert ".." not in re.sub(r"`[^`]*`", "`code`", text), (where, text)   # `Agent(...)` is code
        assert one_sentence_end(text), (where, text)


def test_the_messages_cover_every_kind_of_error():
    kinds = {type(error).__name__ for error in ERRORS}
    assert kinds >= {"TransportError", "RunError", "FollowUpLimitError", "RemoteProtocolError", "RuntimeError"}
    assert len({error_text(error) for error in ERRORS}) >= 12   # every branch of the bubble's words


def test_an_agent_message_ending_with_a_period_is_not_doubled():
    assert "Connection error. See the agent server's log" in str(RunError("Connection error."))
    assert "Connection error (code 500). See" in str(RunError("Connection error.", "500"))
    assert clause("Failed.  ") == "Failed" and clause("No") == "No"


@pytest.mark.parametrize("status", STATUSES)
def test_try_again_only_where_trying_again_can_pass(status):
    error = http_error(REQUEST, status, "Method Not Allowed")
    passes = status in PASSING
    assert ("try again" in error_text(error).lower()) is passes, error_text(error)
    assert ("retries" in str(error)) is passes, str(error)


def test_a_network_failure_can_pass():
    for origin in (None, PAGE):
        error = connection_failed(REQUEST, "TypeError: Failed to fetch", page_origin=origin)
        assert "try again" in error_text(error).lower() and "`await thread.run()` retries." in str(error)


def test_a_wrong_agent_url_says_to_check_it():
    error = http_error(REQUEST, 404, "Not Found")
    assert "the agent URL may be wrong. Check it, and its path." in error_text(error)
    assert "Fix: check the agent URL (it must be the AG-UI endpoint" in str(error)


@pytest.mark.parametrize("status", [405, 501])
def test_a_static_server_that_refuses_post_is_named_and_never_tried_again(status):
    # `python3 -m http.server` answers POST with 501, most other static servers with 405.
    error = http_error(REQUEST, status, "Unsupported method ('POST')")
    assert error_text(error) == (
        f"The server at the agent URL does not take POST requests (HTTP {status}): it is not an assistant's "
        "server (a static file server answers so). Point the agent URL at the agent server.")
    assert "Fix: this URL does not take POST requests" in str(error) and "`Agent(url=...)`" in str(error)
    assert "again" not in error_text(error).lower() and "retries" not in str(error) and "log" not in str(error)


@pytest.mark.parametrize("status", [401, 404, 405, 422])
def test_an_error_of_the_agent_behind_pyclient_serve_names_its_flag_and_url(status):
    error = http_error(REQUEST, status, "nope", upstream="http://127.0.0.1:9999/agnet")
    assert error.upstream == "http://127.0.0.1:9999/agnet"
    assert error_text(error) == (
        f"The agent behind this page's server (`pyclient serve --agent`) answered with an error (HTTP {status}): "
        "that --agent URL may be wrong. Check it; the details name it.")
    assert str(error).startswith(f"The agent at {REQUEST.url} is `pyclient serve`'s proxy; the agent it forwards "
                                 f"to, http://127.0.0.1:9999/agnet (its --agent URL), answered HTTP {status}: nope. "
                                 "Fix: check the URL given to `pyclient serve --agent`")


@pytest.mark.parametrize("status", [500, 503, 429])
def test_a_passing_error_of_the_agent_behind_pyclient_serve_can_pass(status):
    error = http_error(REQUEST, status, "busy", upstream="http://127.0.0.1:9999/agent")
    assert "try again" in error_text(error).lower() and "retries" in str(error)


def test_the_agent_servers_log_only_where_it_holds_the_cause():
    for error in ERRORS:
        points = "server's log" in str(error)
        holds = (isinstance(error, TransportError) and error.status is not None and error.status >= 500) or (
            type(error) is RunError)
        assert points is holds, str(error)
        assert not re.search(r"\blogs?\b", error_text(error)), error_text(error)   # "a login page" is no log


def test_a_failed_cross_origin_request_names_cors_and_the_flag_that_allows_the_page():
    error = connection_failed(REQUEST, "TypeError: Failed to fetch", page_origin=PAGE)
    assert error.cross_origin and error.status is None
    text = str(error)
    assert f"another origin than this page's ({PAGE})" in text and "CORS" in text
    assert f"`pyclient serve --allow-origin {PAGE}`" in text
    assert f"`Access-Control-Allow-Origin: {PAGE}`" in text
    assert "CORS" in error_text(error) and "allow-origin" in console_line("t1", error)
    # The same failure to the page's own origin is the network, nothing else.
    plain = connection_failed(REQUEST, "TypeError: Failed to fetch")
    assert not plain.cross_origin and "CORS" not in str(plain) and "CORS" not in error_text(plain)
    assert error_text(plain) == "The assistant could not be reached. Check your connection and try again."


def test_the_console_line_names_the_thread_the_type_and_the_whole_message():
    error = RunError("Connection error.")
    assert console_line("t1", error) == (
        "pyclient: the run of thread t1 failed: RunError: The agent reported an error: Connection error. "
        "See the agent server's log for the cause; `await thread.run()` retries.")



def test_an_error_that_is_not_pyclients_still_gets_a_sentence():
    assert error_text(None) == "Something went wrong and the assistant could not answer. Try again."
    assert console_line("t1", RuntimeError("boom")) == "pyclient: the run of thread t1 failed: RuntimeError: boom."
