"""The saved form of a thread: snapshots written by earlier pyclient versions restore the same way.

`tests/unit/conversation/snapshots/v1_*.json` were written by `Conversation.snapshot()` as it was before
the snapshot became a pydantic model (main at 0794555); `restored_by_v1.json` is what that
code restored from each (run status, call statuses, interrupted messages, the next step, the
messages without their ids, the state). Today's code must restore the same from the same
files, and write snapshots that read back to the same conversation.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyclient import LocalProtocolError
from pyclient._conversation._machine import Conversation
from pyclient._conversation._snapshot import SNAPSHOT_VERSION, Snapshot
from tests.unit.conversation.test_restore import TOOLS

SAVED = Path(__file__).parent / "snapshots"
FIXTURES = sorted(SAVED.glob("v1_*.json"))
RESTORED = json.loads((SAVED / "restored_by_v1.json").read_text())


def restored_view(conversation: Conversation) -> dict:
    return {
        "run_status": conversation.run_status,
        "calls": {call_id: call.status.value for call_id, call in conversation.calls.items()},
        "interrupted": conversation.interrupted,
        "next_step": type(conversation.next_step()).__name__,
        "messages": [m.model_dump(mode="json", by_alias=True, exclude={"id"}) for m in conversation.messages()],
        "state": conversation.state,
        "live": [call.id for call in conversation.calls.live()],
        "sent": {call_id: call.sent for call_id, call in conversation.calls.items()},
    }


def test_every_fixture_has_what_the_old_code_restored():
    assert len(FIXTURES) == 11 and {path.name for path in FIXTURES} == set(RESTORED)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_a_snapshot_saved_by_the_earlier_code_restores_as_it_did(path):
    data = json.loads(path.read_text())
    assert data["version"] == SNAPSHOT_VERSION == 1
    assert restored_view(Conversation.from_snapshot(data, tools=TOOLS)) == RESTORED[path.name]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.stem)
def test_what_today_writes_reads_back_as_the_same_conversation(path):
    restored = Conversation.from_snapshot(json.loads(path.read_text()), tools=TOOLS)
    again = Conversation.from_snapshot(json.loads(json.dumps(restored.snapshot())), tools=TOOLS)
    first, second = restored_view(restored), restored_view(again)
    assert first["messages"] == second["messages"] and first["state"] == second["state"]
    assert first["calls"] == second["calls"] and first["interrupted"] == second["interrupted"]


def test_the_model_reads_every_field_of_a_saved_call():
    data = json.loads((SAVED / "v1_streaming_text.json").read_text())
    snapshot = Snapshot.load(data)
    (call,) = snapshot.calls
    assert (call.id, call.name, call.status.value, call.tool, call.sent) == ("c1", "delete_all", "completed", "delete_all", True)
    assert call.edited == '{"confirm":true}' and call.result is not None and call.result.content == "done"
    assert snapshot.run_state.value == "STREAMING" and snapshot.state == {"plan": [1, 2]}


def test_keys_a_later_version_adds_are_ignored_not_refused():
    data = json.loads((SAVED / "v1_call_completed.json").read_text())
    data["added_later"] = {"anything": 1}
    data["calls"][0]["also_later"] = True
    assert restored_view(Conversation.from_snapshot(data, tools=TOOLS)) == RESTORED["v1_call_completed.json"]


@pytest.mark.parametrize("damage, match", [
    (lambda d: d.update(version=2), "snapshot version 2"),
    (lambda d: d.pop("version"), "snapshot version None"),
    (lambda d: d.update(run_state="FLYING"), "damaged .*run_state"),
    (lambda d: d["calls"][0].update(status="pondering"), "damaged .*calls.0.status"),
    (lambda d: d.update(messages=[{"role": "robot"}]), "damaged"),
])
def test_a_damaged_or_newer_snapshot_is_refused_with_what_to_do(damage, match):
    data = json.loads((SAVED / "v1_call_completed.json").read_text())
    damage(data)
    with pytest.raises(LocalProtocolError, match=match) as caught:
        Conversation.from_snapshot(data, tools=TOOLS)
    assert "Delete the saved thread" in str(caught.value)
