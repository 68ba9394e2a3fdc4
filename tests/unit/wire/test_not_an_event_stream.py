"""A 2xx answer that is not `text/event-stream` (a login page, a site's fallback page, a proxy's
JSON, AG-UI's protobuf encoding) fails the run at once, before a byte of its body is read, with
an error that names the type and the URL and says what to check; an HTTP error status keeps its
own messages. On CPython through httpx against real servers on 127.0.0.1, and through the
testing kit's in-process transport (the same check, `pyclient._wire._transport.check_event_stream`).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from ag_ui.encoder import AGUI_MEDIA_TYPE

from pyclient import Agent, TransportError
from pyclient._wire._transport import AGUI_PROTOBUF
from pyclient.browser._widgets._error_words import error_text
from pyclient.testing import ScriptedAgent, ServerThread, read_body
from tests.helpers import agent_for, arun, texts


class Answering:
    """An ASGI app answering every POST with `content_type` (no header when None) and, as its
    body, a complete AG-UI run written as SSE for that very request: read as SSE it would
    succeed. The body is left open after it until the client goes away (`hung_up`), unless
    `hold` is False."""

    def __init__(self, content_type: str | None, status: int = 200, hold: bool = True) -> None:
        self.content_type, self.status, self.hold = content_type, status, hold
        self.hung_up = asyncio.Event()
        self.requests = 0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        body = json.loads(await read_body(receive))
        ids = {"threadId": body["threadId"], "runId": body["runId"]}
        events = [{"type": "RUN_STARTED", **ids},
                  {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
                  {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "read as SSE"},
                  {"type": "TEXT_MESSAGE_END", "messageId": "m1"}, {"type": "RUN_FINISHED", **ids}]
        headers = [] if self.content_type is None else [(b"content-type", self.content_type.encode())]
        await send({"type": "http.response.start", "status": self.status, "headers": headers})
        await send({"type": "http.response.body", "more_body": True,
                    "body": "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()})
        if not self.hold:
            await send({"type": "http.response.body", "body": b""})
            return
        while (await receive())["type"] != "http.disconnect":
            pass
        self.hung_up.set()


def run_against(app: Answering):
    """One `send()` of a CPython thread (httpx) to `app` served on 127.0.0.1: the thread, and
    the URL it posted to."""
    with ServerThread(app) as server:
        url = server.url + "/agent"

        async def main():
            async with Agent("test", url) as agent:
                thread = agent.thread()
                await thread.send("hello")
                return thread

        return arun(main(), timeout=10), url


def test_a_200_text_html_answer_fails_the_run_at_once_naming_the_type_and_the_url():
    app = Answering("text/html; charset=utf-8")
    thread, url = run_against(app)
    assert thread.run_status == "error" and isinstance(thread.error, TransportError)
    error = thread.error
    assert error.status == 200 and error.content_type == "text/html; charset=utf-8"
    message = str(error)
    assert f"The agent at {url} answered HTTP 200 with Content-Type text/html; charset=utf-8, " \
           "not text/event-stream" in message
    for what_to_check in ("the agent URL and its path", "`/agent`", "a login page or a proxy"):
        assert what_to_check in message, message
    assert "the body was not read" in message
    # Not read as SSE: its complete run never reached the thread, and the client hung up on it.
    assert texts(thread) == [] and app.requests == 1
    assert app.hung_up.is_set()
    assert [m.role for m in thread.messages] == ["user"]


def test_an_answer_without_a_content_type_is_refused_too():
    thread, url = run_against(Answering(None))
    assert thread.run_status == "error" and thread.error.content_type == ""
    assert f"The agent at {url} answered HTTP 200 with no Content-Type, not text/event-stream" in str(thread.error)
    assert texts(thread) == []


def test_the_protobuf_encoding_is_refused_with_its_own_message():
    thread, url = run_against(Answering(AGUI_MEDIA_TYPE))
    assert thread.run_status == "error" and thread.error.content_type == AGUI_MEDIA_TYPE
    message = str(thread.error)
    assert message.startswith(f"The agent at {url} answered with AG-UI's protobuf encoding ({AGUI_MEDIA_TYPE})")
    assert "`Accept: text/event-stream`" in message and "login page" not in message
    assert texts(thread) == []


def test_the_protobuf_type_is_ag_uis_own():
    assert AGUI_PROTOBUF == AGUI_MEDIA_TYPE   # written out in pyclient: ag_ui is imported lazily


def test_an_event_stream_with_parameters_and_any_case_is_read():
    app = Answering("Text/Event-Stream; charset=utf-8")
    with ServerThread(app) as server:
        async def main():
            async with Agent("test", server.url + "/agent") as agent:
                thread = agent.thread()
                await thread.send("hello")
                return thread

        thread = arun(main(), timeout=10)
    assert thread.run_status == "idle" and texts(thread) == ["read as SSE"]


@pytest.mark.parametrize("status", [404, 500])
def test_an_http_error_status_keeps_its_message_whatever_its_content_type(status):
    thread, url = run_against(Answering("text/html", status=status, hold=False))
    assert thread.run_status == "error" and thread.error.status == status
    assert thread.error.content_type is None
    assert str(thread.error).startswith(f"The agent at {url} answered HTTP {status}: ")


def test_the_scripted_agents_page_is_refused_the_same_in_process():
    agent = ScriptedAgent()
    agent.on("hello").respond_with("<!doctype html><title>Sign in</title>")
    thread = agent_for(agent).thread()
    arun(thread.send("hello"))
    assert thread.run_status == "error" and thread.error.content_type == "text/html; charset=utf-8"
    assert "answered HTTP 200 with Content-Type text/html; charset=utf-8" in str(thread.error)


def test_the_scripted_agents_page_over_http_is_refused():
    agent = ScriptedAgent()
    agent.on("hello").respond_with('{"login": "required"}', content_type="application/json")

    async def main():
        with agent.serve():
            thread = agent.thread()
            await thread.send("hello")
            return thread

    thread = arun(main(), timeout=10)
    assert thread.run_status == "error" and thread.error.content_type == "application/json"
    assert len(agent.requests) == 1


def test_the_chat_says_what_came_instead_and_never_to_try_again():
    def refused(content_type: str) -> TransportError:
        agent = ScriptedAgent()
        agent.otherwise().respond_with("x", content_type=content_type)
        thread = agent_for(agent).thread()
        arun(thread.send("hello"))
        return thread.error

    html = error_text(refused("text/html; charset=utf-8"))
    assert html == ("The assistant's server answered with a web page (text/html), not the assistant's reply: "
                    "the agent URL may be wrong, or a login page or a proxy is in between. Check the agent URL.")
    assert "something else (application/json)" in error_text(refused("application/json"))
    proto = error_text(refused(AGUI_MEDIA_TYPE))
    assert "binary format" in proto and "login" not in proto
    for text in (html, proto):
        assert "try again" not in text.lower()
