"""The demo page's suggestions against the demo model, over HTTP through pydantic-ai's `AGUIAdapter`.

The tools are declared here as the page declares them, with `pyclient.client_tool`, so the
model sees the very definitions (name, description, JSON Schema) a browser sends. Every phrase
is sent with all of them advertised at once, as on the page.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any, Literal

import pytest
from typing_extensions import (
    TypedDict,  # typing's TypedDict has no schema before Python 3.12
)

from devserver.matcher import plan_tool_calls
from pyclient import ClientTool, client_tool
from pyclient.server._demo_model import describe_files, no_tool_answer
from pyclient.server._phrases import EXAMPLE_TOOLS, EXAMPLES, shown, table
from tests.helpers import (  # change_background: the demo's declaration (its handler never runs here)
    PDF_BYTES,
    change_background,
    png_bytes,
)


class PickedColour(TypedDict):
    colour: str


def _never(*args: Any, **kwargs: Any) -> str:
    raise AssertionError("the server tests never run a handler")


@client_tool
def set_heading(text: str) -> str:
    """Change the page heading (title) text.

    Args:
        text: the new heading.
    """
    return _never()


@client_tool(requires_approval=True)
def clear_notes() -> str:
    """Delete every note on the page. The user approves first."""
    return _never()


@client_tool(render_only=True)
def pick_colour(prompt: str) -> PickedColour:
    """Ask the user to pick a colour in the page.

    Args:
        prompt: what to ask the user.
    """
    raise AssertionError("a render-only tool's body never runs")


@client_tool
def create_task(title: str, notes: str, priority: Literal["low", "normal", "high"]) -> str:
    """Add a task to the page's task list.

    Args:
        title: a short title.
        notes: details of the task.
        priority: how urgent it is.
    """
    return _never()


@client_tool(requires_approval=True)
def delete_notes(confirm_text: str) -> str:
    """Delete all the notes on the page, after the user confirms.

    Args:
        confirm_text: what the user is asked to confirm.
    """
    return _never()


@client_tool(requires_approval=True)
def clear_page() -> str:
    """Clear the notes from the page."""
    return _never()


DEMO_TOOLS: list[ClientTool] = [change_background, set_heading, clear_notes, pick_colour, create_task]


def _agui_tools(agui, tools=DEMO_TOOLS):
    return [agui.tool(t.name, t.description, t.parameters) for t in tools]


def _calls(agui, agent_url, text, tools=DEMO_TOOLS):
    """Send `text` with `tools`; the run's result, its input and its calls as [(name, args)]."""
    run_input = agui.run_input([agui.user(text)], _agui_tools(agui, tools))
    result = agui.run(agent_url, run_input)
    assert result.status == 200
    calls = [(c["name"], json.loads(c["args"])) for c in result.tool_calls().values()]
    return result, run_input, calls


@pytest.mark.parametrize(("text", "background"), [
    ("Make the background #1e3a8a", "#1e3a8a"),
    ("make it #1e3a8a", "#1e3a8a"),
    ("Make it #abc", "#abc"),
    ("make it blue", "blue"),
    ("make the background light blue", "lightblue"),
    ("make the background wheat", "wheat"),
    ("make the background rgb(30, 58, 138)", "rgb(30, 58, 138)"),
    ("Make the background a gradient from teal to navy", "linear-gradient(teal, navy)"),
    ("make it a red and blue gradient", "linear-gradient(red, blue)"),
    ("make the background a gradient from #1e3a8a to teal, left to right", "linear-gradient(to right, #1e3a8a, teal)"),
    ("make the background linear-gradient(to right, #1e3a8a, teal)", "linear-gradient(to right, #1e3a8a, teal)"),
])
def test_colours_become_the_background(agent_url, agui, text, background):
    _, _, calls = _calls(agui, agent_url, text)
    assert calls == [("change_background", {"background": background})]


def test_set_the_heading(agent_url, agui):
    _, _, calls = _calls(agui, agent_url, "Set the heading to Hello world")
    assert calls == [("set_heading", {"text": "Hello world"})]


def test_two_tools_in_one_message_are_two_parallel_calls(agent_url, agui):
    text = "Make it teal and set the heading to Welcome"
    result, run_input, calls = _calls(agui, agent_url, text)
    assert calls == [("change_background", {"background": "teal"}), ("set_heading", {"text": "Welcome"})]
    ids = list(result.tool_calls())
    # One assistant message carries both calls, and the run leaves both pending: parallel calls.
    assert len({c["parent_message_id"] for c in result.tool_calls().values()}) == 1
    assert result.events[-1].outcome.pending_tool_call_ids == ids
    follow = agui.follow_up(run_input, result, {"change_background": "background is now teal",
                                                "set_heading": "heading is now 'Welcome'"})
    answer = agui.run(agent_url, follow).text()
    assert 'change_background returned: "background is now teal"' in answer
    assert "set_heading returned: \"heading is now 'Welcome'\"" in answer


def test_two_tools_keep_a_gradient_whole(agent_url, agui):
    text = "Make the background linear-gradient(to right, red, blue), then set the heading to Hi"
    _, _, calls = _calls(agui, agent_url, text)
    assert calls == [("change_background", {"background": "linear-gradient(to right, red, blue)"}),
                     ("set_heading", {"text": "Hi"})]


@pytest.mark.parametrize(("tool", "args"), [
    (clear_notes, {}),
    (delete_notes, {"confirm_text": "Clear the notes"}),
    (clear_page, {}),
])
def test_clear_the_notes_calls_the_approval_tool(agent_url, agui, tool, args):
    tools = [change_background, set_heading, tool, pick_colour, create_task]
    result, run_input, calls = _calls(agui, agent_url, "Clear the notes", tools)
    assert tool.requires_approval
    assert calls == [(tool.name, args)]
    # Approved, the result is quoted; rejected, the failure is.
    approved = agui.run(agent_url, agui.follow_up(run_input, result, {tool.name: "3 notes deleted"})).text()
    assert f'{tool.name} returned: "3 notes deleted"' in approved
    rejected = agui.follow_up(run_input, result, {}, errors={tool.name: "the user clicked Reject"})
    assert f'{tool.name} failed: "the user clicked Reject"' in agui.run(agent_url, rejected).text()


def test_pick_a_colour_calls_the_render_only_tool_then_quotes_the_colour(agent_url, agui):
    result, run_input, calls = _calls(agui, agent_url, "Let me pick a colour")
    assert calls == [("pick_colour", {"prompt": "Let me pick a colour"})]
    assert pick_colour.render_only
    # The page answers with `action.submit({"colour": "#ff8800"})`: pyclient sends it as JSON.
    picked = json.dumps({"colour": "#ff8800"}, separators=(",", ":"))
    answer = agui.run(agent_url, agui.follow_up(run_input, result, {"pick_colour": picked})).text()
    assert answer == f'pick_colour returned: "{picked}"'
    assert "#ff8800" in answer


def test_create_a_task_streams_its_arguments_in_many_chunks(agent_url, agui):
    result, _, calls = _calls(agui, agent_url, "Create a task to water the plants")
    [(name, args)] = calls
    assert name == "create_task"
    assert args["title"] == "Water the plants"
    assert args["priority"] == "normal"
    assert args["notes"].startswith("Water the plants. ") and len(args["notes"]) >= 150
    [call] = result.tool_calls().values()
    assert call["arg_chunks"] >= 10


def test_create_a_task_slowly_shows_its_arguments_arriving(agent_url, agui):
    result, _, calls = _calls(agui, agent_url, "Slowly create a task to water the plants")
    [(name, args)] = calls
    assert name == "create_task" and args["title"] == "Water the plants"
    times = [t for t, kind in zip(result.arrivals, result.types) if kind == "TOOL_CALL_ARGS"]
    assert len(times) >= 10
    assert times[-1] - times[0] >= 1.5
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert sum(g >= 0.1 for g in gaps) >= 8  # paced all along, not one burst


def test_a_priority_the_message_names_is_taken():
    [call] = plan_tool_calls("Create an urgent task, high priority: call the plumber",
                             [create_task.to_agui_tool()])
    assert call.tool_name == "create_task" and call.args["priority"] == "high"


def test_demo_arguments_validate_with_the_page_tools():
    """Each call the demo phrases make passes pyclient's validation with the page's own tool."""
    by_name = {t.name: t for t in DEMO_TOOLS}
    phrases = ["Make the background #1e3a8a", "make it blue", "Set the heading to Hello world",
               "Make it teal and set the heading to Welcome", "Clear the notes", "Let me pick a colour",
               "Create a task to water the plants", "make it a red and blue gradient"]
    for phrase in phrases:
        calls = plan_tool_calls(phrase, [t.to_agui_tool() for t in DEMO_TOOLS])
        assert calls, phrase
        for call in calls:
            assert by_name[call.tool_name].validate_arguments(call.args) == call.args, phrase


def test_a_hex_colour_is_not_read_as_numbers():
    from devserver.arguments import build_arguments

    schema = {"type": "object", "properties": {"background": {"type": "string"}, "size": {"type": "integer"}},
              "required": ["background", "size"]}
    assert build_arguments(schema, "make it #1e3a8a, size 3") == {"background": "#1e3a8a", "size": 3}
    assert build_arguments(schema, "make it rgb(30, 58, 138)") == {"background": "rgb(30, 58, 138)", "size": 0}


def test_a_title_after_titled_is_one_word_and_the_text_the_rest():
    schema = {"type": "object", "properties": {"title": {"type": "string"}, "text": {"type": "string"}},
              "required": ["title", "text"]}
    [call] = plan_tool_calls("save a note titled groceries saying buy milk",
                             [{"name": "save_note", "description": "Save a note.", "parameters": schema}])
    assert call.args == {"title": "groceries", "text": "buy milk"}


def test_notes_alone_take_the_message_not_a_long_text():
    schema = {"type": "object", "properties": {"description": {"type": "string"}}, "required": ["description"]}
    [call] = plan_tool_calls("set the description to Cats on mats",
                             [{"name": "set_description", "description": "Set the page description.",
                               "parameters": schema}])
    assert call.args == {"description": "Cats on mats"}


# -- files ---------------------------------------------------------------------------------------

def _part(kind: str, data: bytes, mime: str, name: str | None = None) -> dict[str, Any]:
    part: dict[str, Any] = {"type": kind, "source": {"type": "data", "value": base64.b64encode(data).decode(),
                                                     "mimeType": mime}}
    if name is not None:
        part["metadata"] = {"pyclient": {"filename": name}}
    return part


def _with_files(agui, content: list[dict[str, Any]]) -> dict[str, Any]:
    body = agui.dump(agui.run_input([], _agui_tools(agui)))
    body["messages"] = [{"id": "user-1", "role": "user", "content": content}]
    return body


def test_a_message_with_files_is_answered_by_naming_them(agent_url, agui):
    content = [{"type": "text", "text": "What are these?"}, _part("image", png_bytes(), "image/png", "chart.png"),
               _part("document", PDF_BYTES, "application/pdf", "report.pdf"),
               _part("document", b"a,b\n1,2\n", "text/csv", "table.csv")]
    answer = agui.run(agent_url, _with_files(agui, content)).text()
    assert answer == (f"I got 1 image (chart.png, {len(png_bytes())} B) and 2 documents "
                      f"(report.pdf, {len(PDF_BYTES)} B; table.csv, 8 B) with your message \"What are these?\". "
                      "I am the demo model: I cannot look inside files.")
    # Files alone, one with no name: named by its type; a larger one's size in kB.
    alone = agui.run(agent_url, _with_files(agui, [_part("image", bytes(2_345), "image/webp")])).text()
    assert alone == "I got 1 image (image/webp, 2.3 kB). I am the demo model: I cannot look inside files."


def test_files_do_not_stop_a_message_from_calling_its_tool(agent_url, agui):
    result = agui.run(agent_url, _with_files(agui, [{"type": "text", "text": "make it blue"},
                                                   _part("image", png_bytes(), "image/png", "sky.png")]))
    assert [(c["name"], json.loads(c["args"])) for c in result.tool_calls().values()] == [
        ("change_background", {"background": "blue"})]


def test_a_tool_result_with_files_is_quoted_with_its_files_described(agent_url, agui):
    run_input = agui.run_input([agui.user("make it blue")], _agui_tools(agui))
    result = agui.run(agent_url, run_input)
    body = agui.dump(agui.follow_up(run_input, result, {"change_background": "placeholder"}))
    body["messages"][-1]["content"] = [{"type": "text", "text": "the page now"},
                                       _part("image", png_bytes(), "image/png", "page.png")]
    assert agui.run(agent_url, body).text() == (
        f'change_background returned: "the page now [1 image (image/png, {len(png_bytes())} B)]"')


def test_describe_files_groups_by_kind():
    assert describe_files([("a.mp3", "audio/mpeg", 1_500), (None, "image/png", None), ("b.mp3", "audio/mpeg", 12)]) == (
        "2 audio files (a.mp3, 1.5 kB; b.mp3, 12 B) and 1 image (image/png, link)")


# -- the examples of docs/getting-started.md ------------------------------------------------------

@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: example.message)
def test_each_example_of_getting_started_calls_what_it_says(example):
    assert shown(plan_tool_calls(example.message, EXAMPLE_TOOLS)) == example.calls


def test_getting_started_shows_the_examples_the_model_runs():
    text = (Path(__file__).parents[2] / "docs" / "getting-started.md").read_text("utf-8")
    assert table() in text, "docs/getting-started.md's table of examples is not pyclient.server._phrases.table()"


def test_a_message_no_tool_matches_gets_the_tools_and_a_hint():
    assert no_tool_answer("what time is it?", ["add_item", "clear_list"]) == (
        "I have no tool for that. Available tools: add_item, clear_list. I call one when your message starts "
        'with its verb or uses words of its name ("add item \u2026").')
