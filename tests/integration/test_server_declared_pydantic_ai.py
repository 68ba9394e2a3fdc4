"""Server-declared client tools against pydantic-ai's AGUIAdapter with an `ExternalToolset`.

The agent (`tests.agents.declared_agent`) declares `lookup_stock`, `confirm_order` and
`audit_log` itself; the page registers handlers only, so no request advertises them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator

import pytest

from devserver.background import ServerThread
from pyclient import Agent, ConfigurationError, client_tool, use_client_tool
from tests.helpers import arun, change_background, tool_messages

DECLARED = {"lookup_stock", "confirm_order", "audit_log"}


@pytest.fixture(scope="module")
def declared_url() -> Iterator[str]:
    from tests.agents.declared_agent import create_app

    with ServerThread(create_app()) as server:
        yield server.url + "/agent"


def make_lookup(calls: list[str]):
    @client_tool(server_declared=True)
    def lookup_stock(sku: str) -> str:
        """Look up the stock of a product."""
        calls.append(sku)
        return f"{sku}: 7 in stock"

    return lookup_stock


def test_a_declared_call_reaches_the_handler_once(declared_url, transport):
    calls: list[str] = []
    thread = Agent("shop", declared_url, client_tools=[change_background, make_lookup(calls)],
                   transport=transport).thread()
    arun(thread.send("how many A1?"))

    assert thread.run_status == "idle" and thread.error is None
    assert calls == ["A1"]
    first, follow_up = transport.bodies
    for body in transport.bodies:
        assert [tool["name"] for tool in body["tools"]] == ["change_background"]
    assert tool_messages(first) == []
    [tool] = tool_messages(follow_up)
    assert tool["content"] == "A1: 7 in stock"
    assert thread.messages[-1].content == "Answer: A1: 7 in stock"


def test_a_render_only_declared_call_is_completed_by_submit(declared_url, transport):
    @client_tool(server_declared=True, render_only=True)
    def confirm_order(sku: str) -> dict:
        """The user confirms the order in the page."""
        raise AssertionError("never runs")

    async def main():
        thread = Agent("shop", declared_url, client_tools=[confirm_order], transport=transport).thread()
        waiting = asyncio.Event()
        thread.subscribe(lambda e: e.kind == "action" and e.payload.status == "awaiting_input" and waiting.set())
        task = asyncio.create_task(thread.send("confirm A1"))
        await waiting.wait()
        [action] = thread.pending_actions
        assert action.tool is confirm_order and json.loads(action.arguments) == {"sku": "A1"}
        assert len(transport.bodies) == 1
        action.submit({"confirmed": True})
        await task
        return thread

    thread = arun(main())
    assert [body["tools"] for body in transport.bodies] == [[], []]
    [tool] = tool_messages(transport.bodies[1])
    assert tool["content"] == '{"confirmed":true}'
    assert thread.messages[-1].content == 'Answer: {"confirmed":true}' and thread.run_status == "idle"


def test_an_unregistered_declared_name_is_refused(declared_url, transport):
    calls: list[str] = []
    thread = Agent("shop", declared_url, client_tools=[make_lookup(calls)], transport=transport).thread()
    arun(thread.send("audit this"))

    assert calls == [] and thread.run_status == "idle"
    [tool] = tool_messages(transport.bodies[1])
    assert "'audit_log' is not available" in tool["content"]
    assert "not available" in thread.messages[-1].content


def test_the_package_root_registration_is_refused():
    with pytest.raises(ConfigurationError, match="belongs to one agent's contract"):
        use_client_tool(make_lookup([]), "#chat")
