"""AG-UI activities and the page's shared-state changes, on CPython.

Activities: `ACTIVITY_SNAPSHOT` / `ACTIVITY_DELTA` kept as activity messages in their place in
the history (`pyclient._conversation._activities`), replaced or left by `replace`, patched by deltas, and
sent back in the next request byte for byte as ag-ui's `RunAgentInput` dumps them; what does
not fold (a bad patch, a delta for no activity, a content made a list) keeps the last good
content and is written in `activity_problems`, never failing the run. Shared state:
`thread.update_state(patch)` changes `thread.state` at once, all or nothing, and the next
request carries it, also when the change was made while a run streamed; a server snapshot
during the run replaces it (`pyclient._conversation._shared_state`).
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from ag_ui.core import (
    ActivityDeltaEvent,
    ActivityMessage,
    ActivitySnapshotEvent,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    UserMessage,
)

from pyclient import Agent, ConfigurationError, LocalProtocolError
from pyclient._conversation._history import History
from pyclient._conversation._machine import Conversation
from pyclient._wire._events import decode_event
from pyclient.testing import ScriptedAgent
from tests.helpers import agent_for, arun, bodies
from tests.unit.conversation.test_request_body import model_body


def snapshot(message_id: str, content, activity_type: str = "search", **fields) -> ActivitySnapshotEvent:
    return ActivitySnapshotEvent(message_id=message_id, activity_type=activity_type, content=content, **fields)


def delta(message_id: str, *patch: dict, activity_type: str = "search") -> ActivityDeltaEvent:
    return ActivityDeltaEvent(message_id=message_id, activity_type=activity_type, patch=list(patch))


def history_with(*events) -> History:
    history = History([UserMessage(id="u1", content="find it")])
    for event in events:
        history.apply(event)
    return history


# -- the history -----------------------------------------------------------------------------

def test_a_snapshot_is_an_activity_message_in_its_place():
    history = history_with(TextMessageContentEvent(message_id="m1", delta="Looking"),
                           snapshot("a1", {"sources": ["x"]}),
                           TextMessageContentEvent(message_id="m2", delta="Found"))
    messages = history.messages()
    assert [m.role for m in messages] == ["user", "assistant", "activity", "assistant"]
    assert messages[2] == ActivityMessage(id="a1", activity_type="search", content={"sources": ["x"]})


def test_a_delta_patches_the_content_in_place_and_a_later_snapshot_replaces_it():
    history = history_with(snapshot("a1", {"sources": ["x"], "done": False}),
                           TextMessageContentEvent(message_id="m1", delta="…"))
    history.apply(delta("a1", {"op": "add", "path": "/sources/-", "value": "y"},
                        {"op": "replace", "path": "/done", "value": True}))
    assert [m.id for m in history.messages()] == ["u1", "a1", "m1"]  # in place, not moved to the end
    assert history.messages()[1].content == {"sources": ["x", "y"], "done": True}
    history.apply(snapshot("a1", {"sources": []}))  # replace absent: it replaces
    assert history.messages()[1].content == {"sources": []}
    history.apply(snapshot("a1", {"other": 1}, activity_type="plan", replace=True))
    assert history.messages()[1] == ActivityMessage(id="a1", activity_type="plan", content={"other": 1})


def test_replace_false_leaves_an_existing_activity_and_creates_a_new_one():
    history = history_with(snapshot("a1", {"n": 1}))
    history.apply(snapshot("a1", {"n": 2}, replace=False))
    assert history.messages()[1].content == {"n": 1}  # "leave what is already there"
    history.apply(snapshot("a2", {"n": 3}, replace=False))
    assert history.messages()[2].content == {"n": 3}  # nothing there: it is the activity


def test_a_snapshot_for_another_messages_id_replaces_it_unless_replace_is_false():
    history = history_with(TextMessageContentEvent(message_id="m1", delta="hi"))
    history.apply(snapshot("m1", {"n": 1}, replace=False))
    assert history.messages()[1].role == "assistant"
    history.apply(snapshot("m1", {"n": 1}))
    assert [m.role for m in history.messages()] == ["user", "activity"]


@pytest.mark.parametrize("event, words", [
    (delta("a1", {"op": "remove", "path": "/missing"}), "the patch does not apply"),
    (delta("a1", {"op": "replace", "path": "", "value": [1, 2]}), "made its content a list, not an object"),
    (delta("nope", {"op": "add", "path": "/x", "value": 1}), "no activity of the history has this id"),
    (delta("m1", {"op": "add", "path": "/x", "value": 1}), "message m1 is not an activity"),
])
def test_an_update_that_does_not_fold_keeps_the_last_content_and_says_why(event, words, caplog):
    history = history_with(snapshot("a1", {"n": 1}), TextMessageContentEvent(message_id="m1", delta="hi"))
    before = history.messages()
    with caplog.at_level(logging.WARNING, logger="pyclient"):
        assert history.apply(event) == {"messages"}  # the UI redraws to show the problem
    assert history.messages() == before
    assert words in history.activity_problems[event.message_id]
    assert any("was not applied" in record.getMessage() for record in caplog.records)
    if event.message_id == "a1":  # a good snapshot of it clears the problem
        history.apply(snapshot("a1", {"n": 2}))
        assert "a1" not in history.activity_problems


def test_content_that_is_not_an_object_is_an_unknown_event_the_history_leaves():
    event = decode_event('{"type": "ACTIVITY_SNAPSHOT", "messageId": "a9", "activityType": "x", "content": [1]}')
    assert type(event).__name__ == "UnknownEvent"
    history = history_with(event)
    assert [m.role for m in history.messages()] == ["user"]


# -- the wire --------------------------------------------------------------------------------

def test_activities_go_back_byte_identical_to_ag_uis_dump_also_after_they_change():
    machine = Conversation("t1")
    machine.add_user_message("find it")
    for step, events in enumerate([
        [snapshot("a1", {"sources": ["x"]}), snapshot("a2", {"n": 1}, activity_type="plan", replace=False)],
        [delta("a1", {"op": "add", "path": "/sources/-", "value": "é\u2028"})],  # a message the last request carried
        [snapshot("a2", {"n": 2}, replace=False), snapshot("a1", {"sources": []}, replace=True)],
    ]):
        request = machine.start_run([])
        assert request.body == model_body(machine, request, [])
        machine.receive(RunStartedEvent(thread_id="t1", run_id=request.run_id))
        for event in events:
            machine.receive(event)
        machine.receive(RunFinishedEvent(thread_id="t1", run_id=request.run_id))
        machine.end_stream()
    request = machine.start_run([])
    assert request.body == model_body(machine, request, [])
    assert b'{"id":"a1","role":"activity","activityType":"search","content":{"sources":[]}}' in request.body
    assert b'"activityType":"plan","content":{"n":1}' in request.body


def test_a_stored_thread_keeps_its_activities():
    machine = Conversation("t1")
    machine.add_user_message("go")
    request = machine.start_run([])
    machine.receive(RunStartedEvent(thread_id="t1", run_id=request.run_id))
    machine.receive(snapshot("a1", {"n": 1}))
    machine.receive(RunFinishedEvent(thread_id="t1", run_id=request.run_id))
    machine.end_stream()
    restored = Conversation.from_snapshot(machine.snapshot())
    assert restored.messages()[1] == ActivityMessage(id="a1", activity_type="search", content={"n": 1})


def test_the_scripted_agent_streams_activities_and_their_deltas_to_a_thread():
    script = ScriptedAgent()
    (script.on("search").activity("search", {"sources": []}).say("Looking")
     .activity("search", patch=[{"op": "add", "path": "/sources/-", "value": "a.org"}])
     .activity("plan", {"steps": 1}, message_id="p1").activity("plan", {"steps": 9}, message_id="p1", replace=False))
    thread = agent_for(script).thread()
    arun(thread.send("search"))
    activities = [m for m in thread.messages if m.role == "activity"]
    assert [(m.activity_type, m.content) for m in activities] == [("search", {"sources": ["a.org"]}),
                                                                 ("plan", {"steps": 1})]
    assert thread.messages[1].role == "activity" and thread.messages[2].content == "Looking"
    with pytest.raises(ValueError, match="one of the two"):
        script.on("x").activity("search")


# -- renderers on the agent --------------------------------------------------------------------

def test_activity_and_state_renderers_are_kept_on_the_agent():
    agent = Agent("a", url="/agent")
    first = agent.activity_renderer("search")(lambda activity: "s")
    anything = agent.activity_renderer("*")(lambda activity: "*")
    assert agent.renderer_for_activity("search") is first and agent.renderer_for_activity("other") is anything
    with pytest.raises(ConfigurationError, match="already has a renderer for 'search'"):
        agent.activity_renderer("search")(lambda activity: None)
    assert agent.renderer_for_state() is None

    @agent.state_renderer
    def plan(state):
        return "plan"

    assert agent.renderer_for_state() is plan
    with pytest.raises(ConfigurationError, match=r"state_renderer\(fn, replace=True\)"):
        agent.state_renderer(lambda state: None)
    other = agent.state_renderer(lambda state: None, replace=True)
    assert agent.renderer_for_state() is other
    with pytest.raises(ConfigurationError, match="must be a function"):
        agent.state_renderer(42, replace=True)


# -- thread.update_state ------------------------------------------------------------------------

def test_update_state_is_applied_at_once_and_sent_with_the_next_request():
    script = ScriptedAgent()
    script.otherwise().say("ok")
    thread = agent_for(script).thread(state={"steps": [{"title": "Plan", "done": False}]})
    heard = []
    thread.subscribe(lambda event: event.kind == "state" and heard.append(event.payload))
    thread.update_state([{"op": "replace", "path": "/steps/0/done", "value": True},
                         {"op": "add", "path": "/steps/-", "value": {"title": "Ship", "done": False}}])
    expected = {"steps": [{"title": "Plan", "done": True}, {"title": "Ship", "done": False}]}
    assert thread.state == expected and heard == [expected]
    arun(thread.send("go"))
    assert bodies(script)[-1]["state"] == expected


def test_a_patch_that_does_not_apply_changes_nothing():
    thread = Agent("a", url="http://agent.test/agent").thread(state={"n": 1})
    with pytest.raises(LocalProtocolError, match="does not apply to the thread's state"):
        thread.update_state([{"op": "replace", "path": "/n", "value": 2}, {"op": "remove", "path": "/gone"}])
    assert thread.state == {"n": 1}
    with pytest.raises(LocalProtocolError, match="list of JSON Patch operations"):
        thread.update_state({"op": "replace", "path": "/n", "value": 2})
    with pytest.raises(LocalProtocolError, match="does not apply"):
        thread.update_state([{"path": "/n"}])  # no op


def test_a_change_while_a_run_streams_goes_with_the_next_request_and_a_snapshot_replaces_it():
    script = ScriptedAgent()
    script.on("slow").say("a b c", chunks=3).state_delta([{"op": "add", "path": "/server", "value": 1}]).slowly(0.05)
    script.on("snap").emit({"type": "STATE_SNAPSHOT", "snapshot": {"server": 2}}).slowly(0.05)
    script.otherwise().say("ok")
    thread = agent_for(script).thread(state={"page": 0})

    async def main():
        task = asyncio.ensure_future(thread.send("slow"))
        while thread.run_status != "running" or not thread.messages[-1].content:
            await asyncio.sleep(0.01)
        thread.update_state([{"op": "replace", "path": "/page", "value": 1}])  # mid-run
        assert thread.state == {"page": 1}
        await task
        assert bodies(script)[-1]["state"] == {"page": 0}  # the request in flight was sent before
        assert thread.state == {"page": 1, "server": 1}    # the server's delta applied on top
        await thread.send("next")
        assert bodies(script)[-1]["state"] == {"page": 1, "server": 1}
        task = asyncio.ensure_future(thread.send("snap"))
        while thread.run_status != "running":
            await asyncio.sleep(0.01)
        thread.update_state([{"op": "add", "path": "/page", "value": 2}])
        await task
        assert thread.state == {"server": 2}  # the agent's snapshot wins

    arun(main())
