"""`Renderers`, the table behind the agent's four renderer decorators, and the look-ups that read it."""

from __future__ import annotations

import pytest

from pyclient import Agent, ConfigurationError
from pyclient._api._renderers import Renderers


def table() -> Renderers:
    return Renderers("tool_renderer", "a ToolPart", example="create_task", owner=lambda: "main")


def test_a_registered_renderer_is_looked_up_by_its_key_and_the_catch_all_takes_the_rest():
    renderers = table()
    card = renderers.register("create_task", lambda part: "card")
    assert renderers.get("create_task") is card and renderers.get("search") is None
    anything = renderers.register("*", lambda part: "any")
    assert renderers.get("search") is anything and renderers.get("create_task") is card


def test_a_missing_key_looks_up_none():
    renderers = table()
    assert renderers.get("create_task") is None and len(renderers) == 0


def test_a_second_renderer_for_a_key_is_refused_unless_it_replaces():
    renderers = table()
    first = renderers.register("create_task", lambda part: "first")
    with pytest.raises(ConfigurationError,
                       match=r"Agent 'main' already has a renderer for 'create_task'\. Pass "
                             r"tool_renderer\('create_task', replace=True\)"):
        renderers.register("create_task", lambda part: "second")
    assert renderers.get("create_task") is first
    second = renderers.register("create_task", lambda part: "second", replace=True)
    assert renderers.get("create_task") is second


def test_a_single_renderer_table_says_how_to_replace_its_one_renderer():
    state = Renderers("state_renderer", "the state", example=None, owner=lambda: "main")
    state.register("state", lambda value: "plan")
    with pytest.raises(ConfigurationError, match=r"already has a state renderer\. Pass state_renderer\(fn, replace=True\)"):
        state.register("state", lambda value: "other")


def test_a_renderer_that_is_not_callable_or_a_key_that_is_not_a_name_is_refused():
    renderers = table()
    with pytest.raises(ConfigurationError, match=r"The renderer of 'create_task' must be a function taking a ToolPart, got int"):
        renderers.register("create_task", 42)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r"tool_renderer\(\) needs a name, got ''\. Use @agent\.tool_renderer\('create_task'\)"):
        renderers.decorator("")  # refused before any function is given
    assert renderers.get("create_task") is None


def test_the_errors_name_the_agent_by_its_name_at_the_time():
    agent = Agent("before", url="/agent")
    agent.interrupt_renderer("input_required")(lambda interrupt: None)
    agent.name = "after"
    with pytest.raises(ConfigurationError, match="Agent 'after' already has a renderer for 'input_required'"):
        agent.interrupt_renderer("input_required")(lambda interrupt: None)


def test_the_thread_looks_up_the_interrupt_renderer_the_agent_registered():
    agent = Agent("main", url="/agent")
    thread = agent.thread()
    assert thread.renderer_for_interrupt("input_required") is None

    @agent.interrupt_renderer("input_required")
    def ask(interrupt):
        return "ask"

    anything = agent.interrupt_renderer("*")(lambda interrupt: "any")
    assert thread.renderer_for_interrupt("input_required") is ask
    assert thread.renderer_for_interrupt("langgraph:interrupt") is anything
    # The older name is the same look-up: it registers nothing.
    assert thread.interrupt_renderer("input_required") is ask
    assert thread.interrupt_renderer("langgraph:interrupt") is anything
    assert agent.renderer_for_interrupt("input_required") is ask


def test_each_kind_of_renderer_has_its_own_table():
    agent = Agent("main", url="/agent")
    tool = agent.tool_renderer("search")(lambda part: "tool")
    activity = agent.activity_renderer("search")(lambda activity: "activity")
    interrupt = agent.interrupt_renderer("search")(lambda interrupt: "interrupt")
    assert agent.renderer("search") is tool
    assert agent.renderer_for_activity("search") is activity
    assert agent.renderer_for_interrupt("search") is interrupt
    assert agent.renderer_for_state() is None
