"""Server-declared client tools in Chromium, against pydantic-ai with an `ExternalToolset`.

The page is web/tests/declared.html (its Python API is web/tests/declared.py); the agent at
`/agent/declared` is tests/agents/declared_agent.py. Request bodies are captured at the
server (`agent_log`).
"""

from __future__ import annotations

import json

import pytest

from tests.e2e.pages import module_page, turn
from tests.helpers import tool_messages


def call(page, name: str, *args):
    result = page.evaluate("([name, args]) => window.t[name](...args)", [name, list(args)])
    return json.loads(result) if isinstance(result, str) and result[:1] in "{[" else result


booted = module_page("/tests/declared.html")
"""The page, booted once; each test gets a new thread on it (`window.t.reset()`)."""


@pytest.fixture
def declared(booted, agent_log):
    with turn(booted) as guard:
        guard.page.evaluate("window.t.reset()")
        agent_log.clear()
        yield guard.page


def test_a_declared_call_reaches_the_page_handler_once(declared, agent_log):
    result = call(declared, "send", "how many A1?")
    assert result["status"] == "idle" and result["error"] is None
    assert result["handled"] == ["A1"]
    assert result["available"] == [] and result["registered"] == ["lookup_stock", "confirm_order"]
    first, follow_up = agent_log.bodies
    assert first["tools"] == [] and follow_up["tools"] == []
    [tool] = tool_messages(follow_up)
    assert tool["content"] == "A1: 7 in stock"
    assert result["last"] == "Answer: A1: 7 in stock"


def test_a_render_only_declared_call_is_completed_by_submit(declared, agent_log):
    result = call(declared, "send_and_submit", "confirm A1", '{"confirmed": true}')
    assert result["waited_as"] == "awaiting_input" and result["status"] == "idle"
    assert [body["tools"] for body in agent_log.bodies] == [[], []]
    [tool] = tool_messages(agent_log.bodies[1])
    assert tool["content"] == '{"confirmed":true}'
    assert result["last"] == 'Answer: {"confirmed":true}' and result["handled"] == []


def test_an_unregistered_declared_name_is_refused(declared, agent_log):
    result = call(declared, "send", "audit this")
    assert result["status"] == "idle" and result["handled"] == []
    [tool] = tool_messages(agent_log.bodies[1])
    assert "'audit_log' is not available" in tool["content"]


def test_the_package_root_registration_is_refused(declared):
    message = call(declared, "package_root_error")
    assert message.startswith("ConfigurationError:") and "belongs to one agent's contract" in message
