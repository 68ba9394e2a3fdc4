"""Which actions each bubble offers (`pyclient.browser._widgets._bar_views`), on CPython: copy on every
bubble, edit on the user's, the thumbs and the branch picker on each answer's last bubble (the
alternatives start at the answer's first message, bubble or not), Regenerate on the last one."""

from __future__ import annotations

from ag_ui.core import (
    AssistantMessage,
    FunctionCall,
    ReasoningMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

from pyclient import BranchPoint
from pyclient.browser._widgets._bar_views import BarView, bar_views

CALL = ToolCall(id="c1", function=FunctionCall(name="echo", arguments="{}"))
HISTORY = [
    UserMessage(id="u1", content="first"),
    ReasoningMessage(id="r1", content="thinking"),                 # the answer starts here: no bubble
    AssistantMessage(id="a1", tool_calls=[CALL]),                  # a card, no bubble
    ToolMessage(id="t1", tool_call_id="c1", content="e"),
    AssistantMessage(id="a2", content="Done **first**"),           # the answer's last bubble
    UserMessage(id="u2", content=[{"type": "text", "text": "second"}, {"type": "image", "source": {
        "type": "url", "value": "https://example.org/a.png", "mimeType": "image/png"}}]),
    AssistantMessage(id="a3", content="Part one"),
    AssistantMessage(id="a4", content="Part two"),
]
RATINGS = {"a2": "down", "a4": "up"}


def test_every_bubble_copies_its_text_and_answers_carry_the_thumbs_and_pickers():
    points = [BranchPoint("r1", 0, 2), BranchPoint("u2", 1, 3)]
    views = bar_views(HISTORY, points, RATINGS.get, feedback=True)
    assert list(views) == ["u1", "a2", "u2", "a3", "a4"]
    assert views["u1"] == BarView("u1", "user", "first", editable=True)
    assert views["a2"] == BarView("a2", "assistant", "Done **first**", rate=True, rating="down",
                                  branch=BranchPoint("r1", 0, 2))
    assert views["u2"] == BarView("u2", "user", "second", editable=True, branch=BranchPoint("u2", 1, 3))
    assert views["a3"] == BarView("a3", "assistant", "Part one")  # not the answer's last bubble
    assert views["a4"] == BarView("a4", "assistant", "Part two", regenerate=True, rate=True, rating="up")


def test_without_on_feedback_there_are_no_thumbs_and_a_question_left_unanswered_has_no_regenerate():
    views = bar_views(HISTORY[:6], [], RATINGS.get, feedback=False)
    assert not any(view.rate or view.rating for view in views.values())
    assert not any(view.regenerate for view in views.values())  # the last message is the user's


def test_a_greeting_before_any_user_message_is_not_regenerated():
    views = bar_views([AssistantMessage(id="g", content="Welcome")], [], RATINGS.get, feedback=True)
    assert views["g"].rate and not views["g"].regenerate
