"""`pyclient.testing.ScriptedAgent` from CPython: served over HTTP, driven by pyclient's own
`Thread` over httpx (`agent.thread()`), one test per scripted behaviour.

Each test checks what the thread ends with (its messages, status and error) and what the agent
recorded (`agent.requests`), so a script method that stopped doing its job fails here.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from pyclient import Agent, RunError, TransportError, UnknownEvent, client_tool
from pyclient.testing import ScriptedAgent, ServerThread, agent_app
from tests.helpers import changed_until, run_to_end, texts, wait_for


@client_tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@client_tool
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def test_a_tool_round_trip_is_recorded():
    agent = ScriptedAgent()
    agent.on("add").say("Adding.").call("add", a=2, b=3).then_say(lambda results: f"It is {results[0].content}")

    async def main():
        with agent.serve():
            thread = agent.thread(client_tools=[add])
            await thread.send("please ADD them")      # matching ignores case
            return thread

    thread = asyncio.run(main())
    assert texts(thread) == ["Adding.", "It is 5"]
    assert thread.run_status == "idle" and thread.error is None
    first, follow_up = agent.requests
    assert [tool.name for tool in first.tools] == ["add"]
    assert [m.content for m in agent.tool_messages] == ["5"]
    assert agent.result_of("add").content == "5" and agent.result_of("shout") is None
    assert agent.wait_for_result("add", timeout_s=1).content == "5"
    # The call and the text are one assistant message, as a model's answer is.
    [answer] = [m for m in follow_up.messages if m.role == "assistant"]
    assert answer.content == "Adding." and answer.tool_calls[0].function.name == "add"


def test_parallel_calls_with_streamed_arguments_come_back_in_one_follow_up():
    agent = ScriptedAgent()
    agent.on("both").call("add", a=1, b=1, chunks=5).call("shout", {"text": "hi"}, chunks=3, call_id="c-shout")

    async def main():
        with agent.serve():
            thread = agent.thread(client_tools=[add, shout])
            await thread.send("both")
            return thread

    thread = asyncio.run(main())
    assert len(agent.requests) == 2
    assert sorted(m.content for m in agent.tool_messages) == ["2", "HI"]
    assert agent.result_of("shout").tool_call_id == "c-shout"
    # With no then_say, the follow-up repeats the results.
    assert texts(thread) == ["2 | HI"]
    # The arguments really came in pieces: the script cut them into that many deltas.
    response = agent.on("cut").call("add", a=10, b=20, chunks=4).first(agent.requests[0])
    assert [e.type.value for e in response.events].count("TOOL_CALL_ARGS") == 4


def test_errors_each_end_the_run_as_the_page_would_see_them():
    agent = ScriptedAgent()
    agent.on("model down").say("Let me").fail("the model is down", code="overloaded")
    agent.on("busy").http_error(503, "try later")
    agent.on("drop").say("a long answer", chunks=4).drop(after=3)

    async def main():
        outcomes = {}
        with agent.serve():
            for said in ("model down", "busy", "drop"):
                thread = agent.thread()
                await thread.send(said)
                outcomes[said] = thread
        return outcomes

    outcomes = asyncio.run(main())
    error = outcomes["model down"].error
    assert isinstance(error, RunError) and error.message == "the model is down" and error.code == "overloaded"
    assert texts(outcomes["model down"]) == ["Let me"]
    error = outcomes["busy"].error
    assert isinstance(error, TransportError) and error.status == 503 and "try later" in error.body
    error = outcomes["drop"].error
    assert isinstance(error, TransportError) and "dropped" in str(error)
    assert all(thread.run_status == "error" for thread in outcomes.values())


def test_slowly_spaces_the_events_and_state_comes_first():
    agent = ScriptedAgent()
    agent.on("slow").state({"step": 1}).say("one two three", chunks=3).slowly(0.1)

    async def main():
        with agent.serve():
            thread = agent.thread()
            started = time.monotonic()
            await thread.send("slow")
            return thread, time.monotonic() - started

    thread, took = asyncio.run(main())
    # RUN_STARTED, STATE_SNAPSHOT, START, 3 deltas, END, RUN_FINISHED: 8 events, 0.1 s before each.
    assert took >= 0.7
    assert thread.state == {"step": 1} and texts(thread) == ["one two three"]


def test_a_held_run_stays_open_until_the_client_stops_it():
    agent = ScriptedAgent()
    agent.on("wait").say("Working on it").hold()
    ends: list[str] = []   # how each response ended, as the server saw it

    async def recording(scope, receive, send):
        ends.append(await run_to_end(agent_app(agent), scope, receive, send))

    async def main(url):
        thread = Agent("scripted", url).thread()
        seen: list[str] = []
        thread.subscribe_events(lambda event: seen.append(event.type.value))
        sending = asyncio.ensure_future(thread.send("wait"))
        await changed_until(thread, lambda: "TEXT_MESSAGE_END" in seen)   # the turn's last event
        held = (sending.done(), thread.run_status)
        thread.stop()
        await sending
        return thread, held, seen

    with ServerThread(recording, log_level="critical") as server:
        thread, held, seen = asyncio.run(main(server.url + "/agent"))
        # The server saw the page go away before the end of its response: it was still open
        # when the stop came, and no RUN_FINISHED was ever sent.
        wait_for(lambda: ends, what="the server's record of the response")   # a moment after the page went away
        assert ends == ["disconnected"]
    assert held == (False, "running")          # the text arrived, the run did not finish
    assert seen[-1] == "TEXT_MESSAGE_END" and "RUN_FINISHED" not in seen
    assert thread.run_end.how == "stopped"     # the stop ended it, not the agent
    assert texts(thread) == ["Working on it"] and thread.run_status == "idle"


def test_a_held_follow_up_streams_its_text_and_stays_open():
    agent = ScriptedAgent()
    agent.on("add").call("add", a=1, b=2).then_say("Thanks, I am", hold=True)

    async def main():
        with agent.serve():
            thread = agent.thread(client_tools=[add])
            sending = asyncio.ensure_future(thread.send("add"))
            await changed_until(thread, lambda: "Thanks, I am" in texts(thread))
            running = thread.run_status
            thread.stop()
            await sending
            return running

    assert asyncio.run(main()) == "running"
    assert [m.content for m in agent.tool_messages] == ["3"]


def test_unmatched_messages_get_the_default_turn_and_clear_forgets_requests():
    agent = ScriptedAgent()

    async def main(said):
        with agent.serve():
            thread = agent.thread()
            await thread.send(said)
            return texts(thread)

    assert asyncio.run(main("anything")) == ["(no scripted answer)"]
    agent.otherwise().say("I only know one thing")
    assert asyncio.run(main("anything else")) == ["I only know one thing"]
    assert len(agent.requests) == 2
    agent.clear()
    assert agent.requests == [] and agent.tool_messages == []


def test_the_endpoint_refuses_what_is_not_a_run_and_explains_a_missing_server():
    agent = ScriptedAgent()
    with pytest.raises(RuntimeError, match="not served"):
        agent.thread()
    with agent.serve() as url:
        assert httpx.post(url, content=b"not json").status_code == 422
        assert httpx.get(url).status_code == 405
        assert httpx.post(url.rsplit("/", 1)[0] + "/elsewhere", json={}).status_code == 404
    with pytest.raises(TimeoutError, match="No result of a 'add' call"):
        agent.wait_for_result("add", timeout_s=0.1)


def test_times_limits_a_turn_and_each_answer_gets_fresh_call_ids():
    agent = ScriptedAgent()
    agent.on("add", times=1).http_error(503, "busy")
    agent.on("add").call("add", a=1, b=1).then_say(lambda results: f"got {[m.content for m in results]}")

    async def main():
        with agent.serve():
            thread = agent.thread(client_tools=[add])
            await thread.send("add")          # the first turn: 503
            first_error = thread.error
            await thread.send("add again")    # the second turn, then its follow-up
            await thread.send("add more")     # the second turn again: a new call id
            return thread, first_error

    thread, first_error = asyncio.run(main())
    assert isinstance(first_error, TransportError) and first_error.status == 503
    assert texts(thread) == ["got ['2']", "got ['2']"]   # each follow-up sees its own result only
    ids = [m.tool_call_id for m in agent.requests[-1].messages if m.role == "tool"]
    assert len(ids) == 2 and len(set(ids)) == 2


def test_a_server_call_streams_with_its_result_and_needs_no_follow_up():
    agent = ScriptedAgent()
    agent.on("search").server_call("web_search", query="pyclient", result="3 results").say("Found 3.")

    async def main():
        with agent.serve():
            thread = agent.thread()
            await thread.send("search")
            return thread

    thread = asyncio.run(main())
    assert len(agent.requests) == 1                       # nothing was sent back
    [part] = thread.tool_parts()
    assert (part.tool_name, part.state, part.input) == ("web_search", "output-available", {"query": "pyclient"})
    assert part.output == "3 results"
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
    assert texts(thread) == ["Found 3."]


def test_emit_finish_and_then_over_http():
    agent = ScriptedAgent()
    agent.on("go").emit({"type": "BRAND_NEW", "x": 1}, '{"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}}').call(
        "add", a=1, b=2, call_id="c1").call("shout", text="no", call_id="c2").finish(
        outcome={"type": "success", "pendingToolCallIds": ["c1"]}).then().call(
        "shout", text="hi", call_id="c3").then_say(lambda results: f"got {results[0].content}")

    async def main():
        with agent.serve():
            thread = agent.thread(client_tools=[add, shout])
            unknown = []
            thread.subscribe_events(lambda event: isinstance(event, UnknownEvent) and unknown.append(event.type))
            await thread.send("go")
            return thread, unknown

    thread, unknown = asyncio.run(main())
    assert unknown == ["BRAND_NEW"] and thread.state == {"n": 1}
    # RUN_FINISHED named c1 only: c2 was left to the agent. The follow-up's turn called again.
    assert [[m.tool_call_id for m in run.messages if m.role == "tool"] for run in agent.requests] == [
        [], ["c1"], ["c1", "c3"]]
    assert texts(thread) == ["got HI"] and thread.run_status == "idle"
