"""Renderer parts (`ToolPart`), renderer lookup, approval with edited arguments, validated submits."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from pyclient import (
    ConfigurationError,
    Image,
    LocalProtocolError,
    MemoryStore,
    ToolError,
    ToolPart,
    client_tool,
)
from pyclient._conversation._parts import parse_partial
from pyclient.testing import ScriptedAgent
from tests.helpers import (
    agent_for,
    arun,
    bodies,
    calls_then_text,
    png_bytes,
    tool_contents,
    until,
)

received: list[dict] = []


@client_tool
def create_task(title: str, notes: str = "", priority: Literal["low", "normal", "high"] = "normal") -> dict:
    """Create a task."""
    received.append({"title": title, "notes": notes, "priority": priority})
    return {"id": 7, "title": title}


@client_tool(requires_approval=True)
def send_mail(to: str, subject: str) -> str:
    """Send an e-mail."""
    received.append({"to": to, "subject": subject})
    return f"sent to {to}"


class Colour(BaseModel):
    colour: str


@client_tool(render_only=True)
def pick_colour(prompt: str) -> Colour:
    """Ask the user for a colour."""
    raise NotImplementedError


@pytest.fixture(autouse=True)
def _clear():
    received.clear()


# -- partial input -------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("", {}),
    ("{", {}),
    ('{"title": "Wat', {"title": "Wat"}),
    ('{"title": "Water", "pri', {"title": "Water"}),
    ('{"n": 12', {"n": 12}),                # a number counts with its digits so far
    ('{"n": 12, "tags": ["a", "b', {"n": 12, "tags": ["a", "b"]}),
    ('[1, 2', {}),                          # not an object: no input
    ("not json", {}),
])
def test_partial_arguments_parse_with_what_they_hold(text, expected):
    assert parse_partial(text) == expected


def test_parts_go_through_the_states_in_order_with_partial_input_first():
    """While arguments stream the part is input-streaming with partial input; then input-available
    (validated, defaults applied); then output-available with the decoded result."""
    args = json.dumps({"title": "Water the plants", "notes": "both balconies"})
    cut = [args[:12], args[12:30], args[30:]]
    seen: list[tuple[str, dict, object]] = []

    # One chunk per event (as `ScriptedAgent.transport()` streams), as a model's deltas arrive:
    # what arrives together is published together, so one body would show only the complete arguments.
    server = ScriptedAgent()
    server.on("make a task").emit(
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "create_task", "parentMessageId": "m1"},
        *({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": d} for d in cut),
        {"type": "TOOL_CALL_END", "toolCallId": "c1"}).then_say("done")
    thread = agent_for(server, [create_task]).thread()

    def on_event(event):
        if event.kind in ("messages", "action") and thread.messages and any(
                getattr(m, "tool_calls", None) for m in thread.messages):
            part = thread.tool_part("c1")
            entry = (part.state, part.input, part.output)
            if not seen or seen[-1] != entry:
                seen.append(entry)

    thread.subscribe(on_event)
    arun(thread.send("make a task"))
    states = [s for s, _, _ in seen]
    assert states[0] == "input-streaming"
    assert states.index("input-available") < states.index("output-available")
    assert sorted(set(states), key=states.index) == ["input-streaming", "input-available", "output-available"]
    streaming_inputs = [i for s, i, _ in seen if s == "input-streaming"]
    assert {"title": "Water the plants"} in streaming_inputs or any(
        i.get("title", "").startswith("Wat") and "notes" not in i for i in streaming_inputs)
    available = next(i for s, i, _ in seen if s == "input-available")
    assert available == {"title": "Water the plants", "notes": "both balconies", "priority": "normal"}
    final = thread.tool_part("c1")
    assert final.output == {"id": 7, "title": "Water the plants"} and final.error_text is None
    assert final.status == "completed" and final.action is None and final.tool is create_task
    assert [p.tool_call_id for p in thread.tool_parts()] == ["c1"]


def test_a_failed_call_is_output_error_and_a_cancelled_one_says_so():
    server = calls_then_text([("c1", "create_task", {"title": 5}), ("c2", "send_mail", {"to": "a", "subject": "b"})])
    thread = agent_for(server, [create_task, send_mail]).thread()

    async def main():
        task = asyncio.ensure_future(thread.send("go"))
        await until(lambda: thread.pending_actions and thread.pending_actions[-1].status == "awaiting_approval")
        part = thread.tool_part("c2")
        assert part.state == "input-available" and part.action is thread.action("c2")
        assert part.action.status == "awaiting_approval"
        thread.action("c2").cancel("changed my mind")
        await task

    arun(main())
    failed = thread.tool_part("c1")
    assert failed.state == "output-error" and "title" in failed.error_text and not failed.cancelled
    assert failed.input == {"title": 5}    # shown as the model wrote it when it does not validate
    cancelled = thread.tool_part("c2")
    assert cancelled.state == "output-error" and cancelled.cancelled and cancelled.action is None


def test_backend_tool_calls_have_parts_with_their_result():
    server = ScriptedAgent()
    server.otherwise().server_call("search", q="pyodide", result='{"hits": 3}', call_id="s1").say("3 hits")
    thread = agent_for(server).thread()
    arun(thread.send("search"))
    part = thread.tool_part("s1")
    assert part.state == "output-available" and part.output == {"hits": 3} and part.tool is None
    assert part.input == {"q": "pyodide"}
    with pytest.raises(LocalProtocolError, match="no-such"):
        thread.tool_part("no-such")


def test_a_results_files_are_restored_with_a_saved_thread():
    png = png_bytes(3, 3)

    @client_tool
    def snapshot() -> list[str | Image]:
        """Take a picture."""
        return ["the picture", Image(png, filename="shot.png")]

    store = MemoryStore()
    server = calls_then_text([("c1", "snapshot", {})])
    agent = agent_for(server, [snapshot])

    async def main():
        thread = agent.thread(thread_id="t1", store=store)
        await thread.send("snap")
        await thread.saved()
        before = thread.tool_part("c1")
        thread.close()
        again = agent.thread(thread_id="t1", store=store)
        await again.restore()
        return before, again.tool_part("c1")

    before, after = arun(main())
    assert before.media == (Image(png, filename="shot.png"),)
    assert (after.state, after.output, after.media) == ("output-available", "the picture", before.media)


def test_a_scripted_server_result_with_files_is_sent_as_parts_and_read_back():
    png = png_bytes(2, 2)
    server = ScriptedAgent()
    server.otherwise().server_call("plot", result=["the chart", Image(png, filename="chart.png"),
                                                   Image(url="https://example.com/map.png")],
                                   call_id="p1").say("plotted")
    thread = agent_for(server).thread()
    arun(thread.send("plot"))
    part = thread.tool_part("p1")
    assert part.state == "output-available" and part.output == "the chart"
    assert part.media == (Image(png, filename="chart.png"), Image(url="https://example.com/map.png"))
    tool_message = thread.messages[2]
    assert [item.type for item in tool_message.content] == ["text", "image", "image"]
    # A file alone: no text part.
    server.on("only").server_call("snap", result=Image(png), call_id="p2")
    arun(thread.send("only"))
    assert thread.tool_part("p2").output == "" and thread.tool_part("p2").media == (Image(png),)


# -- renderers -----------------------------------------------------------------------------


def test_renderer_lookup_prefers_the_tools_own_then_the_agents_then_the_catch_all():
    def own(part: ToolPart) -> str:
        return "own"

    rendered = client_tool(create_task.handler, name="create_task", render=own)
    server = calls_then_text([])
    agent = agent_for(server, [rendered, send_mail])

    @agent.tool_renderer("send_mail")
    def mail(part):
        return "mail"

    thread = agent.thread()
    assert thread.renderer("create_task") is own
    assert thread.renderer("send_mail") is mail
    assert thread.renderer("search") is None

    @agent.tool_renderer("*")
    def anything(part):
        return "any"

    assert thread.renderer("search") is anything and thread.renderer("send_mail") is mail
    with pytest.raises(ConfigurationError, match="replace=True"):
        agent.tool_renderer("send_mail")(lambda part: None)
    agent.tool_renderer("send_mail", replace=True)(anything)
    assert thread.renderer("send_mail") is anything
    with pytest.raises(ConfigurationError, match="ToolPart"):
        agent.tool_renderer("x")(42)


# -- approval with edits -------------------------------------------------------------------


async def sending(thread: Any, text: str, *, until_first_is: str) -> asyncio.Task[None]:
    """Start sending `text` and wait until the thread's first pending action is in that status;
    the send's task (it ends once the action is answered)."""
    task = asyncio.ensure_future(thread.send(text))
    await until(lambda: bool(thread.pending_actions) and thread.pending_actions[0].status == until_first_is)
    return task


def _approval_thread():
    server = calls_then_text([("c1", "send_mail", {"to": "\u202eecila", "subject": "hi"})], quote_tools=True)
    return server, agent_for(server, [send_mail]).thread()


def test_approve_with_edited_arguments_runs_them_and_tells_the_model():
    server, thread = _approval_thread()

    async def main():
        task = await sending(thread, "mail alice", until_first_is="awaiting_approval")
        thread.action("c1").approve(arguments={"to": "alice@example.org", "subject": "hi"})
        await task

    arun(main())
    assert received == [{"to": "alice@example.org", "subject": "hi"}]
    [content] = tool_contents(bodies(server)[1])
    assert "edited the arguments" in content and '"to":"alice@example.org"' in content
    assert content.endswith("sent to alice@example.org")
    part = thread.tool_part("c1")
    assert part.edited and part.input == {"to": "alice@example.org", "subject": "hi"}
    assert part.output == "sent to alice@example.org"
    # The model's own call stays in the history as it made it.
    assert json.loads(thread.messages[1].tool_calls[0].function.arguments)["to"] == "\u202eecila"


def test_invalid_edit_is_refused_and_the_call_keeps_waiting_then_unchanged_edit_is_a_plain_approval():
    server, thread = _approval_thread()

    async def main():
        task = await sending(thread, "mail alice", until_first_is="awaiting_approval")
        with pytest.raises(ToolError, match="subject"):
            thread.action("c1").approve(arguments={"to": "bob"})
        with pytest.raises(ToolError, match="object of its parameters"):
            thread.action("c1").approve(arguments=["bob"])  # type: ignore[arg-type]
        assert thread.action("c1").status == "awaiting_approval" and received == []
        thread.action("c1").approve(arguments={"to": "\u202eecila", "subject": "hi"})   # same as the model's
        await task

    arun(main())
    [content] = tool_contents(bodies(server)[1])
    assert content == "sent to \u202eecila" and not thread.tool_part("c1").edited


def test_edited_approval_survives_a_reload():
    store = MemoryStore()
    server = calls_then_text([("c1", "send_mail", {"to": "bob", "subject": "hi"})], quote_tools=True)
    agent = agent_for(server, [send_mail])
    thread = agent.thread(thread_id="t1", store=store)

    async def main():
        task = await sending(thread, "mail", until_first_is="awaiting_approval")
        thread.action("c1").approve(arguments={"to": "carol", "subject": "hi"})
        await task
        thread.close()
        again = agent.thread(thread_id="t1", store=store)
        await again.restore()
        return again.tool_part("c1")

    part = arun(main())
    assert part.edited and part.input == {"to": "carol", "subject": "hi"} and part.output == "sent to carol"


def test_edits_need_a_call_awaiting_approval():
    server = calls_then_text([("c1", "create_task", {"title": "x"})])
    thread = agent_for(server, [create_task]).thread()
    arun(thread.send("go"))
    with pytest.raises(LocalProtocolError, match="completed"):
        thread.action("c1").approve(arguments={"title": "y"})


# -- render-only submits -------------------------------------------------------------------


def _picking_thread():
    server = calls_then_text([("c1", "pick_colour", {"prompt": "any"})], quote_tools=True)
    return server, agent_for(server, [pick_colour]).thread()


def test_render_only_submit_is_validated_against_the_output_schema():
    server, thread = _picking_thread()

    async def main():
        task = await sending(thread, "let me pick", until_first_is="awaiting_input")
        action = thread.tool_part("c1").action
        assert action is not None and action.status == "awaiting_input"
        with pytest.raises(ToolError, match="colour") as refused:
            action.submit({"color": "teal"})
        assert "keeps waiting" in str(refused.value)
        with pytest.raises(ToolError, match="instance of Colour"):
            action.submit(object())
        assert action.status == "awaiting_input"
        action.submit({"colour": "teal"})
        with pytest.raises(LocalProtocolError, match="already has its answer"):
            action.submit({"colour": "red"})
        await task

    arun(main())
    assert tool_contents(bodies(server)[1]) == ['{"colour":"teal"}']
    assert thread.tool_part("c1").output == {"colour": "teal"}


def test_render_only_fail_answers_with_the_message():
    server, thread = _picking_thread()

    async def main():
        task = await sending(thread, "let me pick", until_first_is="awaiting_input")
        thread.pending_actions[0].fail("the user closed the picker")
        await task

    arun(main())
    part = thread.tool_part("c1")
    assert part.state == "output-error" and part.error_text == "the user closed the picker"
    assert tool_contents(bodies(server)[1]) == ["the user closed the picker"]


def test_a_converter_error_fails_the_call_with_its_message():
    @client_tool
    def give() -> str:
        """Give something."""
        return "x"

    async def main():
        def convert(value):
            raise ToolError("a JS Map object, which is not JSON data.")
        return await give.execute("{}", convert=convert)

    result = arun(main())
    assert result.error == "Tool 'give' returned a JS Map object, which is not JSON data."
