"""Server-declared client tools: never advertised, served for the agent that declares them."""

from __future__ import annotations

import asyncio

import pytest

import pyclient
from pyclient import ConfigurationError, client_tool
from pyclient._binding._platform import DomPlatform
from pyclient._conversation._machine import Conversation
from pyclient.testing import FakeDom
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    change_background,
    settle,
    tool_contents,
    tool_messages,
    tool_names,
)

ran: list[str] = []


@client_tool(server_declared=True)
def lookup_stock(sku: str) -> str:
    """Look up the stock of a product (the agent declares this tool)."""
    ran.append(sku)
    return f"{sku}: 7 in stock"


@client_tool(server_declared=True, render_only=True)
def confirm_order(sku: str) -> dict:
    """The user confirms an order in the page."""
    raise AssertionError("a render-only tool's body never runs")


@pytest.fixture(autouse=True)
def clear_ran():
    ran.clear()


def test_option_is_validated_and_kept():
    assert lookup_stock.server_declared and not change_background.server_declared
    with pytest.raises(ConfigurationError, match="server_declared"):
        client_tool(lambda: "x", name="bad", server_declared="yes")


def test_not_advertised_but_listed_as_registered():
    thread = agent_for(calls_then_text([]), (change_background, lookup_stock)).thread()
    assert [tool.name for tool in thread.available_tools()] == ["change_background"]
    assert [tool.name for tool in thread.registered_tools()] == ["change_background", "lookup_stock"]


def test_a_call_to_it_runs_the_handler_once_and_the_result_returns():
    server = calls_then_text([("c1", "lookup_stock", {"sku": "A1"})], quote_tools=True)
    thread = agent_for(server, (change_background, lookup_stock)).thread()
    arun(thread.send("how many A1?"))
    assert tool_names(bodies(server)[0]) == ["change_background"] and tool_names(bodies(server)[1]) == ["change_background"]
    assert ran == ["A1"]
    assert tool_contents(bodies(server)[1]) == ["A1: 7 in stock"]
    assert thread.messages[-1].content == "A1: 7 in stock" and thread.run_status == "idle"


def test_the_handler_schema_validates_the_arguments():
    server = calls_then_text([("c1", "lookup_stock", {"product": "A1"})])
    thread = agent_for(server, (lookup_stock,)).thread()
    arun(thread.send("go"))
    assert ran == []
    [tool] = tool_messages(bodies(server)[1])
    assert "sku" in tool["content"] and tool["error"] == tool["content"]


def test_thread_and_agent_level_registrations_serve_it_too():
    server = calls_then_text([("c1", "lookup_stock", {"sku": "B2"})], quote_tools=True)
    agent = agent_for(server)
    agent.register_tool(lookup_stock)
    thread = agent.thread()
    assert thread.available_tools() == [] and thread.registered_tools() == [lookup_stock]
    arun(thread.send("go"))
    assert bodies(server)[0]["tools"] == [] and ran == ["B2"]


def test_an_unregistered_unadvertised_name_is_still_refused():
    server = calls_then_text([("c1", "secret", {})])
    thread = agent_for(server, (change_background, lookup_stock)).thread()
    arun(thread.send("go"))
    [tool] = tool_messages(bodies(server)[1])
    assert "'secret' is not available" in tool["content"] and tool["error"] == tool["content"]
    assert "lookup_stock" in tool["content"] and ran == []


def test_render_only_server_declared_waits_for_submit():
    server = calls_then_text([("c1", "confirm_order", {"sku": "A1"})], quote_tools=True)

    async def main():
        thread = agent_for(server, (confirm_order,)).thread()
        task = asyncio.create_task(thread.send("order A1"))
        while not thread.pending_actions:
            await asyncio.sleep(0)
        [action] = thread.pending_actions
        assert action.status == "awaiting_input" and action.tool is confirm_order
        await settle()
        assert len(bodies(server)) == 1
        action.submit({"confirmed": True})
        await task
        return thread

    thread = arun(main())
    assert bodies(server)[0]["tools"] == []
    assert tool_contents(bodies(server)[1]) == ['{"confirmed":true}'] and thread.run_status == "idle"


def test_the_machine_routes_declared_names_to_pending():
    from ag_ui.core import RunFinishedEvent, RunStartedEvent

    from tests.helpers import call_events

    conversation = Conversation("t1")
    conversation.add_user_message("go")
    request = conversation.start_run([change_background], [lookup_stock])
    assert [tool.name for tool in request.input.tools] == ["change_background"]
    conversation.receive(RunStartedEvent(thread_id="t1", run_id=request.input.run_id))
    for event in [*call_events("c1", "lookup_stock", {"sku": "A1"}), *call_events("c2", "secret", {})]:
        conversation.receive(event)
    conversation.receive(RunFinishedEvent(thread_id="t1", run_id=request.input.run_id))
    conversation.end_stream()
    assert conversation.calls["c1"].tool is lookup_stock and not conversation.calls["c1"].done
    assert conversation.calls["c2"].done and conversation.calls["c2"].result.error is not None


def test_package_root_registration_is_refused():
    with pytest.raises(ConfigurationError, match="belongs to one agent's contract"):
        pyclient.use_client_tool(lookup_stock, "#chat")
    dom = FakeDom()
    panel = dom.body.append_child("section", id="chat")
    platform = DomPlatform(dom)
    agent = agent_for(calls_then_text([]), platform=platform)
    thread = agent.thread("#chat")
    with pytest.raises(ConfigurationError, match="agent.use_client_tool"):
        pyclient.use_client_tool(lookup_stock, panel.append_child("div"), platform=platform)
    handle = agent.use_client_tool(lookup_stock, panel.append_child("div"))
    assert thread.available_tools() == [] and thread.registered_tools() == [lookup_stock]
    handle.dispose()
