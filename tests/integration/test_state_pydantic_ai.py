"""Shared state and activities against pydantic-ai's AGUIAdapter (`tests.agents.plan_agent`).

A tool of a `StateDeps` agent returns a `ToolReturn` whose metadata holds a `STATE_SNAPSHOT` and
an `ACTIVITY_SNAPSHOT`: the thread keeps the state and the activity message in its place; the
next request sends the activity back (pydantic-ai reads it and the run goes on), and a change
the page made with `thread.update_state` is the state the server's tool sees.
"""

from __future__ import annotations

from pyclient import Agent
from tests.helpers import arun
from tests.integration.conftest import served_app

plan_server = served_app("tests.agents.plan_agent", "seen")
"""The plan agent, served for each test: its `/agent` URL and the states its tool saw."""


def test_a_tools_state_and_activity_reach_the_thread_and_the_pages_change_reaches_the_tool(plan_server, transport):
    url, seen = plan_server
    thread = Agent("plan", url, transport=transport).thread()
    arun(thread.send("plan draft, review, ship"))
    assert thread.run_status == "idle", thread.error
    assert thread.state == {"steps": [{"description": step, "status": "pending"} for step in ("draft", "review", "ship")]}
    roles = [m.role for m in thread.messages]
    assert roles.count("activity") == 1 and roles[-1] == "assistant" and thread.messages[-1].content == "Planned"
    [activity] = [m for m in thread.messages if m.role == "activity"]
    assert (activity.id, activity.activity_type, activity.content) == ("plan-card", "plan", {"title": "A plan", "steps": 3})

    thread.update_state([{"op": "replace", "path": "/steps/0/status", "value": "completed"}])
    arun(thread.send("status"))
    assert thread.run_status == "idle", thread.error
    assert thread.messages[-1].content == "Read"
    assert seen[-1]["steps"][0] == {"description": "draft", "status": "completed"}
    body = transport.bodies[-1]  # the request of "status": the activity went back as ag-ui writes it
    assert {"id": "plan-card", "role": "activity", "activityType": "plan",
            "content": {"title": "A plan", "steps": 3}} in body["messages"]
