"""The LangGraph test agent (tests/agents/langgraph_app.py), driven over real HTTP with httpx against uvicorn."""

from __future__ import annotations

import json

import pytest

BACKGROUND_SCHEMA = {
    "type": "object",
    "properties": {"background": {"type": "string"}},
    "required": ["background"],
}


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_langgraph_tool_call_then_text_quoting_the_result(langgraph_url, agui):
    tool = agui.tool("change_background", "Change the page background.", BACKGROUND_SCHEMA)
    first_input = agui.run_input([agui.user("make it blue")], [tool], thread_id="lg-thread-1")
    first = agui.run(langgraph_url, first_input)
    assert first.status == 200
    assert first.types[0] == "RUN_STARTED" and first.types[-1] == "RUN_FINISHED"
    [(call_id, call)] = first.tool_calls().items()
    assert call["name"] == "change_background"
    assert call["arg_chunks"] >= 2
    assert json.loads(call["args"]) == {"background": "blue"}
    tool_types = [t for t in first.types if t.startswith("TOOL_CALL")]
    assert tool_types[0] == "TOOL_CALL_START" and tool_types[-1] == "TOOL_CALL_END"
    # ag-ui-langgraph's extras: steps, state and messages snapshots, no run outcome.
    assert {"STEP_STARTED", "STEP_FINISHED", "STATE_SNAPSHOT", "MESSAGES_SNAPSHOT"} <= set(first.types)
    assert first.events[-1].outcome is None

    follow = agui.follow_up(first_input, first, {"change_background": "background is now blue"})
    second = agui.run(langgraph_url, follow)
    assert second.status == 200
    assert not second.of("TOOL_CALL_START")
    assert len(second.of("TEXT_MESSAGE_CONTENT")) >= 2
    assert 'change_background returned: "background is now blue"' in second.text()
    # Reusing the calls' parentMessageId as the assistant message id keeps the checkpointed
    # history free of a duplicate assistant message.
    snapshot = second.of("MESSAGES_SNAPSHOT")[-1]
    assistants_with_calls = [m for m in snapshot.messages if m.role == "assistant" and m.tool_calls]
    assert len(assistants_with_calls) == 1
    assert assistants_with_calls[0].tool_calls[0].id == call_id
