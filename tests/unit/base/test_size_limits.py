"""The agent's size limits on what its threads send and read: a tool result is cut to
`max_result_chars` with a note the model reads (and a warning for the page author), a request
body over `max_request_bytes` is never sent, and an event over `max_event_chars` fails its run
as soon as that much of it has arrived. Over HTTP (httpx, the scripted agent on 127.0.0.1) and
in process."""

from __future__ import annotations

import json
import logging

import pytest

from pyclient import (
    Agent,
    ConfigurationError,
    MockTransport,
    RemoteProtocolError,
    RequestTooLargeError,
    client_tool,
)
from pyclient._base._limits import Limits
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    ids,
    sse,
    texts,
    tool_messages,
)

BIG = 52_428_800  # the 50 MB result


def cut(text: str, limit: int) -> str:
    return (f"{text[:limit]}\n\n[truncated: the result was {len(text):,} characters, over this agent's "
            f"max_result_chars of {limit:,}]")


def returning(text: str):
    @client_tool(name="reader")
    def reader() -> str:
        """Return a long text."""
        return text

    return reader


def truncation_warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.name == "pyclient" and r.levelno == logging.WARNING and "max_result_chars" in r.getMessage()]


# -- results -----------------------------------------------------------------------------------


def test_a_result_over_max_result_chars_is_cut_with_a_note_the_model_reads_and_the_page_is_told(caplog):
    text = "".join(f"line {i}\n" for i in range(1_000))
    server = calls_then_text([("c1", "reader", {})])
    thread = agent_for(server, [returning(text)], max_result_chars=1_000).thread()
    arun(thread.send("go"))
    assert thread.run_status == "idle" and texts(thread)[-1] == "done"
    (message,) = tool_messages(bodies(server)[1])
    assert message["content"] == cut(text, 1_000) and "error" not in message
    assert message["content"].endswith(f"[truncated: the result was {len(text):,} characters, over this agent's "
                                       "max_result_chars of 1,000]")
    assert thread.action("c1").result.content == cut(text, 1_000)
    (warning,) = truncation_warnings(caplog)
    assert f"the result of tool 'reader' for call c1 is {len(text):,} characters" in warning
    assert "`Agent(max_result_chars=...)`" in warning


def test_the_default_limit_is_a_million_characters(caplog):
    server = calls_then_text([("c1", "reader", {}), ("c2", "exact", {})])
    exact = client_tool(lambda: "y" * 1_000_000, name="exact", description="Return a million characters.")
    thread = agent_for(server, [returning("x" * 1_000_001), exact]).thread()
    assert thread.agent.limits.max_result_chars == Limits.max_result_chars == 1_000_000
    arun(thread.send("go"))
    contents = {m["toolCallId"]: m["content"] for m in tool_messages(bodies(server)[1])}
    assert contents == {"c1": cut("x" * 1_000_001, 1_000_000), "c2": "y" * 1_000_000}
    assert len(truncation_warnings(caplog)) == 1


def test_a_50_mb_result_makes_a_follow_up_of_about_1_mb(caplog):
    server = calls_then_text([("c1", "reader", {})])
    thread = agent_for(server, [returning("z" * BIG)]).thread()
    arun(thread.send("go"))
    follow_up = server.transport().requests[1].body
    assert 1_000_000 < len(follow_up) < 1_010_000, len(follow_up)
    assert "[truncated: the result was 52,428,800 characters, over this agent's max_result_chars of 1,000,000]" \
        in tool_messages(json.loads(follow_up))[0]["content"]


def test_an_error_result_and_a_submitted_output_are_cut_too(caplog):
    @client_tool(name="raiser")
    def raiser() -> str:
        """Fails with a long message."""
        raise ValueError("e" * 3_000)

    @client_tool(render_only=True, name="asker")
    def asker() -> str:
        """Ask the user."""

    server = calls_then_text([("c1", "raiser", {}), ("c2", "asker", {})])
    thread = agent_for(server, [raiser, asker], max_result_chars=500).thread()
    thread.subscribe(lambda event: event.payload.submit("s" * 2_000)
                     if event.kind == "action" and event.payload.status == "awaiting_input" else None)
    arun(thread.send("go"))
    by_id = {m["toolCallId"]: m for m in tool_messages(bodies(server)[1])}
    failed, submitted = by_id["c1"], by_id["c2"]
    assert failed["content"] == failed["error"] == cut("e" * 3_000, 500)
    assert submitted["content"] == cut("s" * 2_000, 500)
    assert len(truncation_warnings(caplog)) == 2


# -- requests ------------------------------------------------------------------------------------


def test_a_request_over_max_request_bytes_is_not_sent_and_fails_the_run():
    agent = ScriptedAgent()
    agent.otherwise().say("never")

    async def main():
        with agent.serve():
            async with Agent("test", agent.url, max_request_bytes=2_000) as pyclient_agent:
                thread = pyclient_agent.thread()
                await thread.send("w" * 3_000)   # returns: errors never raise out of send()
                return thread

    thread = arun(main(), timeout=10)
    assert agent.requests == []   # the server never saw it
    assert thread.run_status == "error" and isinstance(thread.error, RequestTooLargeError)
    error = thread.error
    assert error.limit == 2_000 and 3_000 < error.size < 4_000
    message = str(error)
    assert message.startswith(f"The request to {thread.agent.url} is {error.size:,} bytes, over this agent's "
                              "max_request_bytes of 2,000: it was not sent.")
    assert "`Agent(max_request_bytes=...)`" in message and "new thread" in message


def test_a_follow_up_over_the_limit_fails_its_run_and_its_results_wait_unsent():
    server = calls_then_text([("c1", "reader", {})])
    thread = agent_for(server, [returning("r" * 3_000)], max_request_bytes=3_000).thread()
    arun(thread.send("go"))
    assert len(server.transport().requests) == 1   # the first went out; the follow-up did not
    assert thread.run_status == "error" and isinstance(thread.error, RequestTooLargeError)
    assert thread.action("c1").status == "completed"
    arun(thread.run())   # the same body again: refused again, still nothing sent
    assert len(server.transport().requests) == 1 and isinstance(thread.error, RequestTooLargeError)


def test_the_default_request_limit_is_50_mb():
    assert Agent("a", "/agent").limits.max_request_bytes == 50_000_000


# -- events ----------------------------------------------------------------------------------------


def test_an_event_over_max_event_chars_fails_the_run_naming_the_limit():
    agent = ScriptedAgent()
    agent.on("long").say("a" * 2_000)
    agent.on("short").say("b" * 800)

    async def main():
        with agent.serve():
            async with Agent("test", agent.url, max_event_chars=1_000) as pyclient_agent:
                thread = pyclient_agent.thread()
                await thread.send("short")
                short = (thread.run_status, texts(thread))
                await thread.send("long")
                return thread, short

    thread, short = arun(main(), timeout=10)
    assert short == ("idle", ["b" * 800])   # an event within the limit is read
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    message = str(thread.error)
    assert f"An event from {thread.agent.url} is longer than this agent's max_event_chars of 1,000" in message
    assert "`Agent(max_event_chars=...)`" in message
    assert texts(thread) == ["b" * 800]


def test_an_endless_event_is_refused_once_the_limit_has_arrived():
    pulled = []

    async def endless(request):
        yield sse({"type": "RUN_STARTED", **ids(json.loads(request.body))})
        yield b'data: {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "x": "'
        for _ in range(5_000):   # 5 MB without an end (bounded, so that a broken limit fails, not hangs)
            pulled.append(1)
            yield b"x" * 1_000

    thread = agent_for(MockTransport(endless), max_event_chars=100_000).thread()
    arun(thread.send("go"))
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    assert "max_event_chars of 100,000" in str(thread.error)
    assert 100 <= len(pulled) <= 102   # read up to the limit, not one chunk more than needed


def test_the_default_event_limit_and_bad_limits():
    assert Agent("a", "/agent").limits.max_event_chars == 50_000_000
    for name in ("max_result_chars", "max_request_bytes", "max_event_chars"):
        with pytest.raises(ConfigurationError, match=name):
            Agent("a", "/agent", **{name: -1})
    with pytest.raises(ConfigurationError, match="is not a size in characters"):
        Agent("a", "/agent", max_result_chars="big")
