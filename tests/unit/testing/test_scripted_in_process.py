"""`ScriptedAgent.transport()`: the scripted agent answering a CPython thread in this process, and
the script methods for what `say()` and `call()` do not write: `emit()`, `finish()`, `then()`.

Each test checks what the thread ends with and what the agent and the transport recorded.
"""

from __future__ import annotations

import asyncio
import threading

from ag_ui.core import StateDeltaEvent

from pyclient import Agent, RunError, TransportError, UnknownEvent
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, bodies, echo, texts, until


def thread_of(agent: ScriptedAgent, *tools, **options):
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=agent.transport()).thread(**options)


def test_a_round_trip_in_process_records_the_requests_as_over_http():
    agent = ScriptedAgent()
    agent.on("echo").say("Echoing.").call("echo", text="hi", call_id="c1").then_say(
        lambda results: f"said {results[0].content}")
    thread = thread_of(agent, echo)
    arun(thread.send("echo this"))
    assert texts(thread) == ["Echoing.", "said hi"] and thread.run_status == "idle"
    first, follow_up = agent.requests
    assert [tool.name for tool in first.tools] == ["echo"]
    assert [(m.tool_call_id, m.content) for m in agent.tool_messages] == [("c1", "hi")]
    # The transport keeps the bodies it sent, as JSON with the wire's names.
    assert [m["role"] for m in bodies(thread)[1]["messages"]] == ["user", "assistant", "tool"]


def test_events_stream_one_a_chunk():
    agent = ScriptedAgent()
    agent.on("hi").say("one two three", chunks=3)
    thread = thread_of(agent)
    # The events of one chunk are told to the listeners as one "messages" change: here the user
    # message, the assistant's (empty) message, then each delta on its own.
    changes = []
    thread.subscribe(lambda event: event.kind == "messages" and changes.append(thread.messages[-1].content))
    arun(thread.send("hi"))
    assert changes == ["hi", None, "one t", "one two th", "one two three"]


def test_http_error_drop_and_fail_end_the_run_as_over_http():
    agent = ScriptedAgent()
    agent.on("busy").http_error(503, "try later")
    agent.on("drop").say("a long answer", chunks=4).drop(after=3)
    agent.on("model down").say("Let me").fail("the model is down", code="overloaded")
    outcomes = {}
    for said in ("busy", "drop", "model down"):
        thread = outcomes[said] = thread_of(agent)
        arun(thread.send(said))
    error = outcomes["busy"].error
    assert isinstance(error, TransportError) and error.status == 503 and "try later" in error.body
    error = outcomes["drop"].error
    assert isinstance(error, TransportError) and "dropped after 3 events" in str(error)
    assert texts(outcomes["drop"]) == ["a lo"]   # RUN_STARTED, TEXT_MESSAGE_START and one delta came
    error = outcomes["model down"].error
    assert isinstance(error, RunError) and error.code == "overloaded" and texts(outcomes["model down"]) == ["Let me"]


def test_a_held_run_stays_open_until_the_thread_stops_it():
    agent = ScriptedAgent()
    agent.on("wait").say("Working on it").hold()
    thread = thread_of(agent)
    seen = []
    thread.subscribe_events(lambda event: seen.append(event.type.value))

    async def main():
        sending = asyncio.ensure_future(thread.send("wait"))
        await until(lambda: "TEXT_MESSAGE_END" in seen)   # the turn's last event
        # The response is held: the run is open, and stays so until the stop below ends it.
        assert not sending.done() and thread.run_status == "running"
        thread.stop()
        await sending

    arun(main())
    assert seen[-1] == "TEXT_MESSAGE_END" and "RUN_FINISHED" not in seen
    assert thread.run_end.how == "stopped" and texts(thread) == ["Working on it"]


def test_slowly_waits_before_each_event():
    agent = ScriptedAgent()
    agent.on("slow").say("ab", chunks=2).slowly(0.01)
    thread = thread_of(agent)

    async def main():
        loop = asyncio.get_running_loop()
        started = loop.time()
        await thread.send("slow")
        return loop.time() - started

    # RUN_STARTED, TEXT_MESSAGE_START, 2 deltas, TEXT_MESSAGE_END, RUN_FINISHED: 0.01 s before each.
    assert arun(main()) >= 0.06 and texts(thread) == ["ab"]


def test_halfway_holds_the_arguments_until_the_test_lets_them_go():
    agent = ScriptedAgent()
    halfway = threading.Event()
    agent.on("task").call("echo", text="Water the plants", call_id="c1", chunks=4, halfway=halfway).then_say("ok")
    thread = thread_of(agent, echo)

    async def main():
        sending = asyncio.ensure_future(thread.send("task"))
        await until(lambda: bool(thread.tool_parts()) and thread.tool_parts()[0].input)
        # Half the deltas came and no more: the rest of an ungated stream would take a few turns
        # of the loop (one event each, in process); fifty later the input is still the half.
        for _ in range(50):
            await asyncio.sleep(0)
        part = thread.tool_part("c1")
        assert (part.state, part.arguments) == ("input-streaming", '{"text": "Wate'), part
        halfway.set()
        await sending

    arun(main())
    assert thread.tool_part("c1").state == "output-available" and texts(thread) == ["ok"]


def test_halfway_holds_a_text_until_the_test_lets_it_go():
    agent = ScriptedAgent()
    halfway = threading.Event()
    agent.on("story").say("one two three four", chunks=4, halfway=halfway)
    thread = thread_of(agent)

    async def main():
        sending = asyncio.ensure_future(thread.send("story"))
        await until(lambda: len(thread.messages) == 2 and thread.messages[-1].content)
        for _ in range(50):   # an ungated stream would end within a few turns
            await asyncio.sleep(0)
        assert (thread.run_status, texts(thread)) == ("running", ["one two th"])
        halfway.set()
        await sending

    arun(main())
    assert texts(thread) == ["one two three four"] and thread.run_status == "idle"


def test_emit_streams_events_as_given_in_script_order():
    agent = ScriptedAgent()
    agent.on("go").say("before").emit(
        {"type": "STATE_SNAPSHOT", "snapshot": {"n": 1}},
        StateDeltaEvent(delta=[{"op": "add", "path": "/seen", "value": True}]),
        {"type": "BRAND_NEW", "x": 1},
        '{"type": "TEXT_MESSAGE_START", "messageId": "m-raw", "role": "assistant"}',
        '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-raw", "delta": "hi \\ud83d"}',
        '{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-raw", "delta": "\\ude00"}',
        '{"type": "TEXT_MESSAGE_END", "messageId": "m-raw"}',
    ).say("after")
    thread = thread_of(agent)
    unknown = []
    thread.subscribe_events(lambda event: isinstance(event, UnknownEvent) and unknown.append(event.type))
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.state == {"n": 1, "seen": True}
    assert unknown == ["BRAND_NEW"]
    # The escapes stayed as written: two halves of one emoji in two deltas.
    assert texts(thread) == ["before", "hi \U0001f600", "after"]


def test_emit_sends_data_that_is_not_json_and_the_run_fails_on_it():
    agent = ScriptedAgent()
    agent.on("go").say("kept").emit("<html>oops</html>")
    thread = thread_of(agent)
    arun(thread.send("go"))
    assert thread.run_status == "error" and "<html>oops</html>" in str(thread.error)
    assert texts(thread) == ["kept"]


def test_finish_adds_fields_to_run_finished():
    agent = ScriptedAgent()
    agent.on("go").call("echo", text="a", call_id="c1").call("echo", text="b", call_id="c2").finish(
        outcome={"type": "success", "pendingToolCallIds": ["c2"]}).then_say("done")
    thread = thread_of(agent, echo)
    arun(thread.send("go"))
    # Only the call RUN_FINISHED names is the client's to answer.
    assert [m.tool_call_id for m in agent.tool_messages] == ["c2"]
    run = agent.requests[0]
    assert agent.on("x").finish(outcome={"type": "success"}).first(run).events[-1] == {
        "type": "RUN_FINISHED", "threadId": run.thread_id, "runId": run.run_id, "outcome": {"type": "success"}}


def test_then_answers_the_follow_up_with_a_turn_of_its_own():
    agent = ScriptedAgent()
    agent.on("twice").call("echo", text="one", call_id="c1").then().call(
        "echo", text="two", call_id="c2").then_say(lambda results: "got " + " | ".join(m.content for m in results))
    agent.on("again").say("plain")
    thread = thread_of(agent, echo)
    arun(thread.send("twice"))
    assert len(agent.requests) == 3 and texts(thread) == ["got two"]
    assert [m.tool_call_id for m in agent.tool_messages] == ["c1", "c2"]
    # The next user message is matched afresh.
    arun(thread.send("again"))
    assert texts(thread)[-1] == "plain" and len(agent.requests) == 4
