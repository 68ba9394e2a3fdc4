"""AG-UI activities and shared state in the chat, in Chromium, against the scripted agent.

The page is web/tests/state.html (its Python, web/tests/state.py), booted once per mode on the
plugin's site: each test opens a new `Chat` on a new thread of an Agent at the site's `/agent`,
the test's `scripted_agent` (`window.t.open(url)`). The page has activity renderers for the
types "custom" (an element) and "boom" (raises), and a state renderer that draws a plan's steps
with a button that changes the state (`thread.update_state`). The AG-UI dojo's "agentic
generative UI" (steps in state, STATE_DELTA updates), "shared state" and "predictive state
updates" streams are replayed into the chat. The tests of what the page draws and sends (cards
in their place, a plan redrawn once a frame, the renderer's button) run with the page's Python
on the main thread and in a worker (`BOTH_MODES`); what Python decides of a stream (malformed or
oversized activities, limits on state, dojo replays) is `MAIN_ONLY`. An uncaught error in the
page fails a test.
"""

from __future__ import annotations

import json

import pytest
from ag_ui.core import CustomEvent, StateSnapshotEvent
from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, ChatPage, module_page, turn

TIMEOUT = 30_000


scripted_guard = module_page("/tests/state.html", site="plugin")
"""The page on the plugin's site, whose `/agent` is the running test's `scripted_agent`."""


@pytest.fixture
def page(scripted_guard, serving):
    """A new chat on this test's `scripted_agent`; the page it is on."""
    with turn(scripted_guard) as guard:
        guard.page.evaluate("url => window.t.open(url)", "/agent")
        yield guard.page


def steps(n: int, done: int = 0) -> list[dict]:
    return [{"description": f"Step {i + 1}", "status": "completed" if i < done else "pending"} for i in range(n)]


# -- activities ---------------------------------------------------------------------------------

@BOTH_MODES
def test_activity_cards_default_and_custom_in_their_place(page, scripted_agent):
    (scripted_agent.on("search").activity("search", {"query": "pyodide", "sources": []}).say("Looking it up")
     .activity("search", patch=[{"op": "add", "path": "/sources/-", "value": "pyodide.org"},
                                {"op": "add", "path": "/sources/-", "value": "pyscript.net"}])
     .activity("custom", {"label": "hello <b>"}))
    ChatPage(page).send("search")
    ChatPage(page).wait_idle()
    search = page.locator(".pyclient-activity[data-activity-type='search']")
    expect(search.locator(".pyclient-activity-type")).to_have_text("search")
    expect(search.locator("dt")).to_have_text(["query", "sources"])
    expect(search.locator("dd")).to_have_text(["pyodide", "pyodide.org, pyscript.net"])  # the delta applied
    custom = page.locator(".pyclient-activity[data-activity-type='custom']")
    expect(custom.locator(".custom-activity")).to_have_text("Custom: hello <b>")  # text, never HTML
    expect(custom.locator(".pyclient-activity-summary")).to_be_hidden()
    # The user message, the search card, the answer, the custom card: history order.
    order = page.evaluate("[...document.querySelectorAll('.pyclient-messages > li')].map(li => "
                          "li.dataset.activityType || (li.textContent.includes('Looking') ? 'answer' : 'user'))")
    assert order == ["user", "search", "answer", "custom"]


@MAIN_ONLY
@pytest.mark.callback_errors_expected
def test_malformed_activities_and_a_raising_renderer_never_break_the_chat(page, scripted_agent):
    (scripted_agent.on("break").activity("boom", {"n": 1})
     .activity("search", {"n": 1}, message_id="a1")
     .activity("search", patch=[{"op": "remove", "path": "/missing"}], message_id="a1")
     .activity("search", [1, 2], message_id="a2")                                          # not an object
     .activity("search", patch=[{"op": "add", "path": "/x", "value": 1}], message_id="gone")  # no such activity
     .say("still here"))
    ChatPage(page).send("break")
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("still here")
    boom = page.locator(".pyclient-activity[data-activity-type='boom']")
    expect(boom.locator(".pyclient-render-error")).to_contain_text("RuntimeError: the activity renderer broke <b>")
    expect(boom.locator("dd")).to_have_text("1")  # the default summary stays under the fallback
    bad = page.locator(".pyclient-activity[data-activity-id='a1']")
    expect(bad.locator(".pyclient-activity-problem")).to_contain_text("the patch does not apply")
    expect(bad.locator("dd")).to_have_text("1")  # the last good content
    notices = page.locator(".pyclient-activity-broken")
    try:
        expect(notices).to_have_count(2)
    except AssertionError as error:
        raise AssertionError(f"{error}\nthe notices: {notices.all_text_contents()}") from None
    # One notice each, in the order of the frames that drew them: both in one frame, or the
    # invalid event's first when a frame came between the two events (it streamed first).
    texts = notices.all_text_contents()
    assert sorted(("no activity of the history has this id" in text, "content: Input should be a valid dictionary"
                   in text) for text in texts) == [(False, True), (True, False)], texts
    # The run went on, and the next one too.
    scripted_agent.otherwise().say("and again")
    ChatPage(page).send("more")
    expect(page.locator(".pyclient-assistant").last).to_have_text("and again", timeout=TIMEOUT)
    expect(page.locator(".pyclient-activity-broken")).to_have_count(2)  # each told once


@MAIN_ONLY
def test_an_activity_of_500000_zero_width_characters_shows_one_marker_a_run_and_the_page_answers(page, scripted_agent):
    # 3 MB on the wire ("\u200b" escaped): it was a span each, and the page froze for ~50 s.
    scripted_agent.on("flood").activity("search", {"query": "a" + "\u200b" * 500_000 + "b"}).say("flooded")
    ChatPage(page).send("flood")
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("flooded")
    card = page.locator(".pyclient-activity[data-activity-type='search']")
    # One marker for the summary's cut line, one for the whole content: each says how many.
    expect(card.locator("dd .pyclient-invisible")).to_have_text(["⟨U+200B×158⟩"])
    content = card.locator(".pyclient-activity-content .pyclient-invisible")
    expect(content).to_have_text(["⟨U+200B×500000⟩"])
    expect(content).to_have_attribute("title", "500,000 invisible characters: U+200B")
    assert page.locator(".pyclient-chat .pyclient-invisible").count() == 2
    assert page.evaluate("document.querySelectorAll('span').length") < 200
    # The page answers: the next message goes out and its answer shows.
    scripted_agent.on("after").say("still here")
    ChatPage(page).send("after")
    expect(page.locator(".pyclient-assistant").last).to_have_text("still here", timeout=TIMEOUT)


# -- shared state --------------------------------------------------------------------------------

@BOTH_MODES
def test_dojo_agentic_generative_ui_steps_redrawn_as_deltas_arrive_once_a_frame(page, scripted_agent):
    turn = scripted_agent.on("plan").state({"steps": steps(10)}).slowly(0.004)
    for i in range(10):
        turn.state_delta([{"op": "replace", "path": f"/steps/{i}/status", "value": "completed"}])
        for _ in range(3):  # the dojo's pacing is slower; more deltas than frames proves the batching
            turn.state_delta([{"op": "replace", "path": f"/steps/{i}/description", "value": f"Step {i + 1}"}])
    turn.say("All ten steps are done")
    ChatPage(page).send("plan")
    plan = page.locator(".pyclient-state ol.plan li")
    expect(plan).to_have_count(10, timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect(plan.filter(has_text="✓")).to_have_count(10)
    expect(page.locator(".pyclient-assistant").last).to_have_text("All ten steps are done")
    renders = page.evaluate("window.t.renders()")
    assert 1 <= renders < 40, renders  # 41 state changes (a snapshot, 40 deltas), drawn once a frame at most
    assert json.loads(page.evaluate("window.t.state()")) == {"steps": steps(10, done=10)}


@BOTH_MODES
def test_update_state_from_the_page_reaches_the_agent(page, scripted_agent):
    scripted_agent.on("plan").state({"steps": steps(3)}).say("Here is the plan")
    scripted_agent.on("go on").say("Going on")
    ChatPage(page).send("plan")
    ChatPage(page).wait_idle()
    page.locator(".pyclient-state .mark-first").click()  # the renderer's button: thread.update_state(...)
    expect(page.locator(".pyclient-state li").first).to_have_attribute("data-status", "completed")
    ChatPage(page).send("go on")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Going on", timeout=TIMEOUT)
    assert scripted_agent.requests[-1].state == {"steps": steps(3, done=1)}


@MAIN_ONLY
def test_dojo_shared_state_and_predictive_state_updates_are_shown(page, scripted_agent):
    # Shared state: the agent's STATE_SNAPSHOT of the recipe, shown; it goes back with the next run.
    recipe = {"title": "Pancakes", "skill_level": "Beginner", "cooking_time": "15 min",
              "ingredients": [{"icon": "🥚", "name": "Eggs", "amount": "2"}, {"icon": "🥛", "name": "Milk", "amount": "1 cup"}],
              "instructions": ["Mix", "Fry"]}
    scripted_agent.on("improve").state({"recipe": recipe}).say("I improved the recipe")
    ChatPage(page).send("improve the recipe")
    expect(page.locator(".pyclient-state .recipe")).to_have_text("Pancakes: Eggs, Milk", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    # Predictive state updates: PredictState, the tool writing the document, then the state.
    scripted_agent.on("write").emit(
        CustomEvent(name="PredictState", value=[{"state_key": "document", "tool": "write_document",
                                                 "tool_argument": "document"}]),
    ).server_call("write_document", document="Once upon a time", result="written", chunks=4).emit(
        StateSnapshotEvent(snapshot={"document": "Once upon a time"}),
    ).say("I wrote the story")
    ChatPage(page).send("write")
    expect(page.locator(".pyclient-state .document")).to_have_text("Once upon a time", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    card = page.locator(".pyclient-tool[data-tool='write_document']")
    expect(card.locator(".pyclient-badge")).to_have_text("done")
    expect(page.locator(".pyclient-assistant").last).to_have_text("I wrote the story")
    assert scripted_agent.requests[-1].state == {"recipe": recipe}  # the shared state went back
    assert page.locator(".pyclient-state .plan").count() == 0


# -- hostile patches: bombs and ever deeper paths ------------------------------------------------

BOMB = [{"op": "copy", "from": "", "path": f"/k{i}"} for i in range(24)]
"""24 copies of the whole document into itself: a kilobyte doubled 24 times, 16 GB."""


def ever_deeper(events: int = 3, per_event: int = 100, levels: int = 4) -> list[list[dict]]:
    """`events` patches of `per_event` operations, each adding `levels` levels below the last
    (paths are text: shallow events that build a document `events * per_event * levels` deep)."""
    patches, depth = [], 0
    for _ in range(events):
        operations = []
        for _ in range(per_event):
            value: dict = {}
            for _ in range(levels - 1):
                value = {"a": value}
            operations.append({"op": "add", "path": "/a" * (depth + 1), "value": value})
            depth += levels
        patches.append(operations)
    return patches


def refused_in_words(page, words: str) -> None:
    """The run failed, the chat says so in words, and its details say which event and why."""
    expect(page.locator(".pyclient-error-text")).to_have_text("The assistant's reply could not be read. Try again.",
                                                              timeout=TIMEOUT)
    expect(page.locator(".pyclient-error-details pre")).to_contain_text(words)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "error")


@MAIN_ONLY
def test_a_state_delta_that_doubles_the_state_fails_its_run_in_words_and_the_page_goes_on(page, scripted_agent):
    plan = {"steps": steps(30)}
    scripted_agent.on("bomb", times=1).state(plan).state_delta(BOMB).say("never shown")
    scripted_agent.otherwise().say("still here")
    ChatPage(page).send("bomb")
    refused_in_words(page, "The server sent a STATE_DELTA that pyclient refuses: operation")
    expect(page.locator(".pyclient-error-details pre")).to_contain_text(
        "would make the patch copy more than 1,000,000 characters")
    expect(page.locator(".pyclient-state ol.plan li")).to_have_count(30)   # the last good state, drawn
    assert json.loads(page.evaluate("window.t.state()")) == plan
    ChatPage(page).send("and now?")
    expect(page.locator(".pyclient-assistant").last).to_have_text("still here", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert scripted_agent.requests[-1].state == plan   # the next request carried it


@MAIN_ONLY
def test_a_state_built_too_deep_by_shallow_deltas_fails_its_run_in_words_and_the_page_goes_on(page, scripted_agent):
    turn = scripted_agent.on("deep", times=1).state({"steps": steps(2)}).say("building")
    for patch in ever_deeper():
        turn.state_delta(patch)
    scripted_agent.otherwise().say("still here")
    ChatPage(page).send("deep")
    refused_in_words(page, "would nest the document deeper than 39 levels")
    expect(page.locator(".pyclient-assistant").first).to_have_text("building")   # what was said stays
    ChatPage(page).send("and now?")
    expect(page.locator(".pyclient-assistant").last).to_have_text("still here", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert scripted_agent.requests[-1].state == {"steps": steps(2)}
    assert page.locator(".pyclient-user").all_text_contents() == ["deep", "and now?"]


@MAIN_ONLY
def test_activity_patches_past_the_limits_keep_their_cards_say_why_and_the_run_goes_on(page, scripted_agent):
    sources = {"query": "pyodide", "sources": [f"source-{i}.org" for i in range(60)]}
    (scripted_agent.on("search", times=1)
     .activity("search", sources, message_id="a1").activity("search", patch=BOMB, message_id="a1")
     .activity("plan", {"n": 1}, message_id="p1").activity("plan", patch=ever_deeper(1, 20)[0], message_id="p1")
     .say("done"))
    scripted_agent.otherwise().say("still here")
    ChatPage(page).send("search")
    expect(page.locator(".pyclient-assistant").last).to_have_text("done", timeout=TIMEOUT)   # the run went on
    ChatPage(page).wait_idle()
    bombed = page.locator(".pyclient-activity[data-activity-id='a1']")
    expect(bombed.locator(".pyclient-activity-problem")).to_contain_text(
        "the patch is refused: operation")
    expect(bombed.locator(".pyclient-activity-problem")).to_contain_text("copy more than 1,000,000 characters")
    expect(bombed.locator("dd").first).to_have_text("pyodide")   # the last good content
    deep = page.locator(".pyclient-activity[data-activity-id='p1']")
    expect(deep.locator(".pyclient-activity-problem")).to_contain_text("would nest the document deeper than 39 levels")
    expect(deep.locator("dd")).to_have_text("1")
    ChatPage(page).send("and now?")
    expect(page.locator(".pyclient-assistant").last).to_have_text("still here", timeout=TIMEOUT)
    contents = [m.content for m in scripted_agent.requests[-1].messages if m.role == "activity"]
    assert contents == [sources, {"n": 1}]
