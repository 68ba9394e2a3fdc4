"""What an AG-UI 1.0 agent streams besides text and tool calls, folded by a CPython thread:
reasoning (both event families, and the encrypted value sent back), subagents (attribution kept
on the messages and across a reload), steps and `thread.on_custom`.

Each thread talks to a `ScriptedAgent` in this process; `Turn.reason/step/custom/subagent` write
the events as a server does.
"""

from __future__ import annotations

import pytest

from pyclient import Agent, MemoryStore
from pyclient.testing import ScriptedAgent
from tests.helpers import arun, bodies, echo


def thread_of(agent: ScriptedAgent, *tools, **options):
    return Agent("test", "http://agent.test/agent", client_tools=tools, transport=agent.transport()).thread(**options)


def shape(thread):
    """The history without its ids: (role, content) per message."""
    return [(m.role, m.content) for m in thread.messages]


def test_reasoning_folds_the_same_from_both_event_families():
    shapes, seen = [], []
    for legacy in (False, True):
        agent = ScriptedAgent()
        agent.on("plan").reason("First the venue, then the date.", chunks=4, legacy=legacy).say("Booked")
        thread = thread_of(agent)
        kinds = []
        thread.subscribe_events(lambda event: kinds.append(str(getattr(event.type, "value", event.type))))
        arun(thread.send("plan my party"))
        shapes.append(shape(thread))
        seen.append([kind for kind in kinds if "REASON" in kind or "THINK" in kind])
    assert shapes[0] == shapes[1] == [("user", "plan my party"), ("reasoning", "First the venue, then the date."),
                                      ("assistant", "Booked")]
    # Listeners see the 1.0 names: the THINKING_* events were read as REASONING_*.
    assert seen[1] == ["REASONING_START", "REASONING_MESSAGE_START", *["REASONING_MESSAGE_CONTENT"] * 4,
                       "REASONING_MESSAGE_END", "REASONING_END"]
    assert seen[0] == seen[1]


def test_encrypted_reasoning_is_kept_and_sent_back_in_the_next_request():
    agent = ScriptedAgent()
    agent.on("plan").reason("Considering", encrypted="opaque-1").reason("", encrypted="opaque-2").say("Done")
    agent.on("again").say("Sure")
    thread = thread_of(agent)
    arun(thread.send("plan"))
    arun(thread.send("again"))
    sent = bodies(thread)[1]["messages"]
    reasoning = [m for m in sent if m["role"] == "reasoning"]
    # The second has no text, only its value (pydantic-ai's reasoning without a summary): kept too.
    assert [(m["content"], m["encryptedValue"]) for m in reasoning] == [("Considering", "opaque-1"), ("", "opaque-2")]
    assert [m["role"] for m in sent] == ["user", "reasoning", "reasoning", "assistant", "user"]
    # The scripted agent read back the same (ag-ui's own model of the body).
    assert [m.encrypted_value for m in agent.requests[1].messages if m.role == "reasoning"] == ["opaque-1", "opaque-2"]


def test_a_subagents_messages_and_calls_carry_its_run_id_and_its_status_follows_its_events():
    agent = ScriptedAgent()
    (agent.on("research").say("Asking the researcher.")
     .subagent("researcher", description="finds things", subagent_run_id="s1")
     .reason("Where to look").call("echo", text="query", call_id="c1").end_subagent(result={"found": 3})
     .subagent("writer", subagent_run_id="s2").say("Drafting").end_subagent(error="out of ink")
     .then_say("All done"))
    thread = thread_of(agent, echo)
    arun(thread.send("research this"))
    attributed = [(m.role, m.subagent_run_id) for m in thread.messages]
    assert attributed == [("user", None), ("assistant", None), ("reasoning", "s1"), ("assistant", "s1"),
                          ("assistant", "s2"), ("tool", None), ("assistant", None)]
    call_owner = next(m for m in thread.messages if getattr(m, "tool_calls", None))
    assert call_owner.subagent_run_id == "s1" and call_owner.tool_calls[0].id == "c1"
    runs = [(run.subagent_run_id, run.name, run.status, run.error, run.result) for run in thread.subagents]
    assert runs == [("s1", "researcher", "finished", None, {"found": 3}), ("s2", "writer", "error", "out of ink", None)]
    assert thread.subagent("s1").description == "finds things" and thread.subagent("nope") is None
    # Sent back as the server wrote it: the follow-up's history carries the attribution.
    assert [m.get("subagentRunId") for m in bodies(thread)[1]["messages"]] == [None, None, "s1", "s1", "s2", None]


def test_subagents_and_their_attribution_survive_a_reload_from_the_store():
    store = MemoryStore()
    agent = ScriptedAgent()
    agent.on("research").subagent("researcher", subagent_run_id="s1").say("Found it").end_subagent()
    agent.on("slow").subagent("writer", subagent_run_id="s2").say("Writing").hold()
    thread = thread_of(agent, thread_id="t1", store=store)
    arun(thread.send("research"))
    thread.close()

    again = thread_of(agent, thread_id="t1", store=store)
    arun(again.restore())
    assert [(m.role, m.subagent_run_id) for m in again.messages] == [("user", None), ("assistant", "s1")]
    assert [(run.name, run.status) for run in again.subagents] == [("researcher", "finished")]

    async def held_then_reloaded():
        import asyncio

        task = asyncio.ensure_future(again.send("slow"))
        while not again.subagents[-1:] or again.subagents[-1].name != "writer":
            await asyncio.sleep(0.01)
        await again.saved()
        task.cancel()

    arun(held_then_reloaded())
    third = thread_of(agent, thread_id="t1", store=store)
    arun(third.restore())
    # It was working when the page died: not "running" for ever.
    assert [(run.name, run.status) for run in third.subagents] == [("researcher", "finished"), ("writer", "interrupted")]


def test_steps_are_events_the_thread_tells_and_wrap_what_follows():
    agent = ScriptedAgent()
    agent.on("go").step("search").say("Searching").step("book").say("Booked")
    thread = thread_of(agent)
    steps = []
    thread.subscribe_events(lambda event: event.type in ("STEP_STARTED", "STEP_FINISHED")
                            and steps.append((event.type.value, event.step_name)))
    arun(thread.send("go"))
    assert steps == [("STEP_STARTED", "search"), ("STEP_FINISHED", "search"), ("STEP_STARTED", "book"),
                     ("STEP_FINISHED", "book")]


def test_on_custom_calls_back_with_the_value_and_unsubscribes():
    agent = ScriptedAgent()
    agent.on("go", times=2).custom("progress", {"done": 1}).custom("sound", "ding").custom("progress", {"done": 2}).say("ok")
    thread = thread_of(agent)
    values, everything = [], []
    unsubscribe = thread.on_custom("progress", values.append)
    thread.on_custom("*", lambda name, value: everything.append((name, value)))
    arun(thread.send("go"))
    assert values == [{"done": 1}, {"done": 2}]
    assert everything == [("progress", {"done": 1}), ("sound", "ding"), ("progress", {"done": 2})]
    unsubscribe()
    arun(thread.send("go"))
    assert values == [{"done": 1}, {"done": 2}] and len(everything) == 6
    with pytest.raises(TypeError, match="needs a callable"):
        thread.on_custom("progress", None)


@pytest.mark.callback_errors_expected
def test_a_raising_custom_callback_is_logged_and_never_breaks_the_run(callback_errors):
    agent = ScriptedAgent()
    agent.on("go").custom("progress", 1).say("still here")
    thread = thread_of(agent)
    later = []

    def broken(value):
        raise RuntimeError("broken callback")

    thread.on_custom("progress", broken)
    thread.on_custom("progress", later.append)
    arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.messages[-1].content == "still here" and later == [1]
    assert any("CUSTOM 'progress'" in found and "broken callback" in found for found in callback_errors)


def test_pydantic_ais_reasoning_streams_fold_the_same_and_its_signature_goes_back():
    from tests.agents.dojo_streams import HAIKU, THOUGHT, reasoning_chat

    histories = []
    for version in (None, "0.1.10"):   # REASONING_* (AG-UI 1.0), then THINKING_* (before 0.1.11)
        agent = ScriptedAgent()
        agent.on("haiku").emit(*reasoning_chat(version))
        agent.on("another").say("Sure")
        thread = thread_of(agent)
        arun(thread.send("write a haiku about autumn"))
        arun(thread.send("another"))
        histories.append((shape(thread), bodies(thread)[1]["messages"]))
    (new, new_body), (old, _) = histories
    assert new == old == [("user", "write a haiku about autumn"), ("reasoning", THOUGHT), ("assistant", HAIKU),
                          ("user", "another"), ("assistant", "Sure")]
    [reasoning] = [m for m in new_body if m["role"] == "reasoning"]
    assert '"signature": "sig-autumn-1"' in reasoning["encryptedValue"]  # pydantic-ai's, echoed as it sent it


def test_a_subagent_still_running_when_the_turn_is_stopped_is_interrupted():
    import asyncio

    agent = ScriptedAgent()
    agent.on("slow").subagent("writer", subagent_run_id="s1").say("Writing").hold()
    agent.on("done").subagent("writer", subagent_run_id="s1").say("Done").end_subagent()
    thread = thread_of(agent)

    async def stop_while_it_works():
        task = asyncio.ensure_future(thread.send("slow"))
        while not thread.subagents:
            await asyncio.sleep(0.01)
        assert thread.subagents[0].status == "running"
        thread.stop()
        await task

    arun(stop_while_it_works())
    assert [(run.name, run.status) for run in thread.subagents] == [("writer", "interrupted")]
    arun(thread.send("done"))   # the same invocation goes on in a later run
    assert [(run.name, run.status) for run in thread.subagents] == [("writer", "finished")]
