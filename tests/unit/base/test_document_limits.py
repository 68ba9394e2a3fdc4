"""Shared state and activities within limits, on CPython: JSON Patch bombs and deep documents.

A `STATE_DELTA` or `ACTIVITY_DELTA` of a few dozen `copy` operations from `""` doubles the
document each time (gigabytes from a kilobyte); deltas of ever longer paths build a state
hundreds of levels deep, which no copy, save or request survives. `pyclient._base._json_patch`
checks each operation before it applies it: over `MAX_DOCUMENT_CHARS`, `MAX_DOCUMENT_DEPTH`
or the patch's `MAX_PATCH_COPY_CHARS`, the event is refused at that operation, the last good
document is kept, and the thread goes on: a state's problem fails its run (as a delta that
does not apply does), an activity's is written in `activity_problems` and the run goes on.
"""

from __future__ import annotations

import json
import re
from typing import Any
from unittest import mock

import jsonpatch
import pytest
from ag_ui.core import ActivitySnapshotEvent, StateSnapshotEvent
from hypothesis import event, given, note, settings
from hypothesis import strategies as st

from pyclient import LocalProtocolError, MemoryStore, RemoteProtocolError
from pyclient._conversation._history import History
from pyclient.testing import ScriptedAgent
from tests.helpers import agent_for, arun, within

# A kilobyte of state in a few hundred values: each copy from "" doubles them all.
SEED = {"items": [{"id": i, "name": f"item {i}", "done": False} for i in range(30)]}
BOMB = [{"op": "copy", "from": "", "path": f"/k{i}"} for i in range(24)]
"""24 copies of the whole document into itself: 2^24 times the seed, 16 GB of JSON."""

REFUSED_COPY = re.compile(r"operation (\d+) \(copy '' to '/k\d+'\) would make the patch copy more than "
                          r"1,000,000 characters")


def nested(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def ever_deeper(events: int = 3, per_event: int = 100, levels: int = 4) -> list[list[dict]]:
    """`events` patches of `per_event` operations, each adding `levels` levels below the last:
    shallow events (a path is text) that build a state `events * per_event * levels` deep."""
    patches, depth = [], 0
    for _ in range(events):
        operations = []
        for _ in range(per_event):
            operations.append({"op": "add", "path": "/a" * (depth + 1), "value": nested(levels)})
            depth += levels
        patches.append(operations)
    return patches


def script_with(*steps: Any) -> ScriptedAgent:
    """A scripted agent whose answer to "go" is `steps(turn)`, then "done"; anything else: "fine"."""
    script = ScriptedAgent()
    turn = script.on("go", times=1)
    for step in steps:
        step(turn)
    turn.say("done")
    script.otherwise().say("fine")
    return script


# -- the shared state --------------------------------------------------------------------------

def test_a_copy_bomb_in_a_state_delta_is_refused_at_the_operation_that_crosses_the_limit():
    script = script_with(lambda turn: turn.state(SEED), lambda turn: turn.state_delta(BOMB))
    thread = agent_for(script).thread()
    with within(20, "a STATE_DELTA that doubles the state 24 times"):
        arun(thread.send("go"))
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    refused = REFUSED_COPY.search(str(thread.error))
    assert refused is not None, thread.error
    assert int(refused.group(1)) < 12  # stopped where it crossed: never built whole
    assert str(thread.error).startswith("The server sent a STATE_DELTA that pyclient refuses")
    assert "The state was left as it was before this event" in str(thread.error)
    assert thread.state == SEED   # the last good state
    arun(thread.send("again"))    # the thread goes on, and sends that state
    assert thread.run_status == "idle" and thread.messages[-1].content == "fine"
    assert script.requests[-1].state == SEED


def test_a_state_built_deeper_than_the_limit_by_shallow_deltas_is_refused_and_nothing_said_is_lost():
    script = ScriptedAgent()
    turn = script.on("go", times=1).say("building")
    for patch in ever_deeper():
        turn.state_delta(patch)
    script.otherwise().say("fine")
    store = MemoryStore()
    thread = agent_for(script).thread(thread_id="t", store=store)
    arun(thread.send("go"))
    # Refused as a state problem of the run, never a bare RecursionError.
    assert thread.run_status == "error" and isinstance(thread.error, RemoteProtocolError)
    assert "would nest the document deeper than 39 levels" in str(thread.error)
    assert thread.state == {}
    arun(thread.send("still there?"))  # the next request can be written and sent
    assert thread.run_status == "idle" and thread.messages[-1].content == "fine"
    said = [(m.role, m.content) for m in thread.messages]
    assert said == [("user", "go"), ("assistant", "building"), ("user", "still there?"), ("assistant", "fine")]
    arun(thread.saved())
    thread.close()

    async def reload() -> list[tuple[str, Any]]:
        again = agent_for(script).thread(thread_id="t", store=store)
        assert await again.restore()
        return [(m.role, m.content) for m in again.messages]

    assert arun(reload()) == said  # a new thread on the same store has it all


def test_a_state_snapshot_over_the_size_limit_is_refused_and_the_state_kept():
    history = History(state={"a": 1})
    with pytest.raises(RemoteProtocolError, match=r"STATE_SNAPSHOT that pyclient does not keep: it is about "
                                                  r"10,000,00\d characters as JSON, over the 10,000,000"):
        history.apply(StateSnapshotEvent(snapshot={"s": "x" * 10_000_000}))
    assert history.state == {"a": 1}


def test_a_page_patch_that_would_pass_the_limits_changes_nothing():
    thread = agent_for(ScriptedAgent()).thread()
    thread.state = SEED
    with within(20, "update_state with 24 copies of the state into itself"):
        with pytest.raises(LocalProtocolError, match="thread.update_state\\(\\): the patch is refused: operation"):
            thread.update_state(BOMB)
    with pytest.raises(LocalProtocolError, match="deeper than 39 levels"):
        thread.update_state(ever_deeper(1)[0])
    assert thread.state == SEED


# -- activities ----------------------------------------------------------------------------------

def test_an_activity_delta_bomb_keeps_the_last_content_says_why_and_the_run_goes_on():
    script = script_with(lambda turn: turn.activity("search", SEED, message_id="a1"),
                         lambda turn: turn.activity("search", patch=BOMB, message_id="a1"))
    thread = agent_for(script).thread()
    with within(20, "an ACTIVITY_DELTA that doubles the content 24 times"):
        arun(thread.send("go"))
    assert thread.run_status == "idle" and thread.error is None
    assert thread.messages[-1].content == "done"  # the run went on after it
    (activity,) = [m for m in thread.messages if m.role == "activity"]
    assert activity.content == SEED
    problem = thread.activity_problems["a1"]
    assert problem.startswith("the activity's update does not apply: the patch is refused: operation")
    assert REFUSED_COPY.search(problem)


def test_an_activity_built_too_deep_is_refused_and_the_next_request_is_sent():
    patch = ever_deeper(1, per_event=20)[0]  # 80 levels in one delta
    script = script_with(lambda turn: turn.activity("plan", {"n": 1}, message_id="p1"),
                         lambda turn: turn.activity("plan", patch=patch, message_id="p1"))
    thread = agent_for(script).thread()
    arun(thread.send("go"))
    assert "would nest the document deeper than 39 levels" in thread.activity_problems["p1"]
    arun(thread.send("next"))
    assert thread.run_status == "idle" and thread.messages[-1].content == "fine"
    assert [m.content for m in script.requests[-1].messages if m.role == "activity"] == [{"n": 1}]


def test_an_activity_snapshot_over_the_size_limit_is_a_problem_not_a_message():
    history = History()
    history.apply(ActivitySnapshotEvent(message_id="a1", activity_type="big", content={"s": "x" * 10_000_000}))
    assert "its content is too large to keep: it is about 10,000,0" in history.activity_problems["a1"]
    assert history.messages() == []


# -- the patches themselves ----------------------------------------------------------------------

_KEYS = st.sampled_from(["a", "b", "0", "1", "-"])
_VALUES = st.recursive(st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
                       max_leaves=8)
_PATHS = st.lists(_KEYS, max_size=4).map(lambda parts: "".join("/" + part for part in parts))


def _paths_in(value: Any, path: str = "") -> list[str]:
    found = [path]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths_in(child, f"{path}/{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            found += _paths_in(child, f"{path}/{index}")
    return found


def _operations(paths: st.SearchStrategy[str]) -> st.SearchStrategy[dict]:
    """Operations whose paths are mostly the document's own (random ones rarely apply)."""
    targets = paths | paths.map(lambda path: path + "/-") | _PATHS
    return st.one_of(
        st.builds(lambda op, path, value: {"op": op, "path": path, "value": value},
                  st.sampled_from(["add", "replace", "test"]), targets, _VALUES),
        st.builds(lambda path: {"op": "remove", "path": path}, paths),
        st.builds(lambda source, path: {"op": "copy", "from": source, "path": path}, paths, targets),
        st.builds(lambda source, path: {"op": "move", "from": source, "path": path}, paths, targets),
    )


@pytest.mark.parametrize("document, operations, room, refused", [
    # A move counted as a new member, then a copy that fits once the document is measured again.
    ([None], [{"op": "move", "from": "/0", "path": "/0"}, {"op": "copy", "from": "/0", "path": "/0"}], 5, None),
    # A move whose removal shifts an array: its target's parent becomes an object, the key a member.
    ({"l": ["z", [], {}]}, [{"op": "move", "from": "/l/0", "path": "/l/1/x"}], 3, 1),
    ({"l": ["z", [], {}]}, [{"op": "move", "from": "/l/0", "path": "/l/1/x"}], 4, None),
    # A replaced member is taken off: the same size again fits, one character more does not.
    ({"a": "xy"}, [{"op": "replace", "path": "/a", "value": "zw"}, {"op": "add", "path": "/a", "value": "q"}], 0, None),
    ({"a": "xy"}, [{"op": "replace", "path": "/a", "value": "xyz"}], 0, 1),
    ({"a": [1, 2]}, [{"op": "remove", "path": "/a/0"}, {"op": "add", "path": "/a/-", "value": 3}], 0, None),
    ({"a": [1, 2]}, [{"op": "remove", "path": "/a/0"}, {"op": "add", "path": "/a/-", "value": "x"}], 0, 2),
    # A new member costs its key as well as its value.
    ({"a": 1}, [{"op": "add", "path": "/b", "value": 1}], 7, None),
    ({"a": 1}, [{"op": "add", "path": "/b", "value": 1}], 6, 1),
])
def test_the_size_account_is_exact_or_measured_again(document, operations, room, refused):
    from pyclient._base import _json_patch
    from pyclient._base._json_patch import PatchLimitError, measure, patch_document

    with mock.patch.object(_json_patch, "MAX_DOCUMENT_CHARS", measure(document)[0] + room):
        if refused is None:
            assert patch_document(document, operations) == jsonpatch.apply_patch(document, operations)
        else:
            with pytest.raises(PatchLimitError, match=f"operation {refused} .* would make the document about"):
                patch_document(document, operations)


@settings(max_examples=600)
@given(data=st.data())
def test_a_patch_within_the_limits_is_jsonpatchs_and_one_past_them_stops_where_it_crosses(data):
    from pyclient._base import _json_patch
    from pyclient._base._json_patch import (
        PatchError,
        PatchLimitError,
        measure,
        patch_document,
    )

    document = data.draw(_VALUES, "document")
    # Limits just above the document, so that generated patches cross them.
    size = measure(document)[0] + data.draw(st.integers(0, 12), "room")
    depth = max(measure(document)[1], 2)
    operations = data.draw(st.lists(_operations(st.sampled_from(_paths_in(document))), max_size=8), "operations")

    def within_limits(value: Any) -> bool:
        return measure(value)[0] <= size and measure(value)[1] <= depth

    given_text = json.dumps(document)
    with mock.patch.object(_json_patch, "MAX_DOCUMENT_CHARS", size), \
            mock.patch.object(_json_patch, "MAX_DOCUMENT_DEPTH", depth):
        try:
            result = patch_document(document, operations)
        except PatchLimitError as exc:
            note(str(exc))
            event("refused: " + str(exc).split(") ", 1)[1][:30])
            number = int(re.match(r"operation (\d+) ", str(exc)).group(1))
            # Every operation before it applies within the limits; it would cross them.
            before = jsonpatch.apply_patch(document, operations[:number - 1])
            assert within_limits(before)
            try:
                after = jsonpatch.apply_patch(before, operations[number - 1:number])
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException):
                return  # refused before jsonpatch would have said it does not apply
            assert not within_limits(after)
        except PatchError:
            event("does not apply")
            with pytest.raises((jsonpatch.JsonPatchException, jsonpatch.JsonPointerException)):
                jsonpatch.apply_patch(document, operations)
        else:
            event("applied")
            assert result == jsonpatch.apply_patch(document, operations) and within_limits(result)
    assert json.dumps(document) == given_text  # never changed in place
