"""What an AG-UI 1.0 agent streams besides text and tool calls, in the chat, in Chromium: the
"Thinking" section of reasoning, subagent groups, the step line, custom events and RAW events,
and the AG-UI dojo's "agentic chat with reasoning" and "backend tool rendering" scenarios as
pydantic-ai's `AGUIAdapter` streams them (`tests/agents/dojo_streams.py`, replayed).

The page is web/tests/stream.html on the plugin's site; each test opens a new `Chat` on a new
thread of the running test's `scripted_agent` (`window.t.open(url, steps)`). Streams that must
be seen while they stream go `slowly()`. The Thinking section (opened, then folded) and the
subagent groups are structures only these tests make, so they run with the page's Python on the
main thread and in a worker (`BOTH_MODES`); the rest is text in nodes those and the chat's other
tests make, and what Python decides of a stream: `MAIN_ONLY`.
"""

from __future__ import annotations

import json

import pytest
from ag_ui.core import RawEvent
from playwright.sync_api import expect

from tests.agents.dojo_streams import (
    HAIKU,
    THOUGHT,
    WEATHER,
    backend_tool_rendering,
    reasoning_chat,
)
from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, ChatPage, module_page, record_states, recorded_states, said, turn

TIMEOUT = 30_000


guard = module_page("/tests/stream.html", site="plugin")
"""The page on the plugin's site, whose `/agent` is the running test's `scripted_agent`."""


@pytest.fixture
def chat(guard, serving):
    """`chat(steps=True)`: a new chat on this test's `scripted_agent`; the page it is on."""
    with turn(guard) as checked_guard:
        def open_(steps: bool = True):
            checked_guard.page.evaluate("([url, steps]) => window.t.open(url, steps)", ["/agent", steps])
            return checked_guard.page
        yield open_


@BOTH_MODES
def test_thinking_is_open_while_it_streams_and_folds_when_the_answer_starts(chat, scripted_agent):
    scripted_agent.on("think").reason("Weighing the venue, then the date, then the guests.", chunks=5,
                                      encrypted="opaque-reasoning-value").say("Book the hall for Friday.",
                                                                              chunks=3).slowly(0.15)
    page = chat()
    record_states(page, """[document.querySelector('.pyclient-thinking')?.dataset.streaming ?? null,
                            !!document.querySelector('.pyclient-thinking details[open]'),
                            document.querySelector('.pyclient-thinking-summary')?.textContent ?? null]""")
    ChatPage(page).send("think it through")
    ChatPage(page).wait_idle()
    assert ["true", True, "Thinking…"] in recorded_states(page)   # open while it streams
    thinking = page.locator(".pyclient-thinking")
    expect(thinking.locator("details")).not_to_have_attribute("open", "")   # folded: the answer started
    expect(thinking.locator(".pyclient-thinking-summary")).to_have_text("Thinking")
    expect(thinking.locator(".pyclient-thinking-text")).to_have_text("Weighing the venue, then the date, then the guests.")
    # Above its answer, in the conversation's order.
    items = page.locator(".pyclient-messages > li")
    expect(items.nth(1)).to_have_class("pyclient-thinking")
    expect(items.nth(2)).to_have_text("Book the hall for Friday.")
    # The encrypted value is kept and sent back, never shown.
    assert "opaque-reasoning-value" not in page.locator(".pyclient-chat").text_content()
    scripted_agent.on("again").say("ok")
    ChatPage(page).send("again")
    ChatPage(page).wait_idle()
    [reasoning] = [m for m in scripted_agent.requests[-1].messages if m.role == "reasoning"]
    assert reasoning.encrypted_value == "opaque-reasoning-value"
    # A person who opens it again keeps it open.
    thinking.locator("summary").click()
    expect(thinking.locator("details")).to_have_attribute("open", "")


@BOTH_MODES
def test_a_subagents_work_is_grouped_under_its_name_and_status(chat, scripted_agent):
    (scripted_agent.on("plan").say("Asking my helpers.")
     .subagent("researcher", description="finds venues").reason("Where to look first")
     .server_call("search_venues", city="Lyon", result="3 venues").say("Found 3 venues.").end_subagent()
     .subagent("writer").say("Drafting the invite").end_subagent(error="out of ink")
     .say("Here is the plan.").slowly(0.05))
    # While a subagent works, its group says so: a run held open with its subagent started (a
    # stream that runs on would end it before a busy page draws the state in between).
    scripted_agent.on("look").subagent("researcher", description="finds venues").say("Looking").hold()
    page = chat()
    ChatPage(page).send("look around")
    expect(page.locator(".pyclient-subagent")).to_have_attribute("data-status", "running", timeout=TIMEOUT)
    page.locator(".pyclient-stop").click()
    ChatPage(page).wait_idle()

    page = chat()
    ChatPage(page).send("plan the party")
    groups = page.locator(".pyclient-subagent")
    ChatPage(page).wait_idle()
    expect(groups).to_have_count(2)
    researcher, writer = groups.nth(0), groups.nth(1)
    expect(researcher.locator(".pyclient-subagent-name")).to_have_text("researcher")
    expect(researcher.locator(".pyclient-subagent-status")).to_have_text("finished")
    expect(researcher).to_have_attribute("data-status", "finished")
    # Its reasoning, its tool call and its text are inside the group, in order.
    inside = researcher.locator(".pyclient-subagent-items > li")
    expect(inside).to_have_count(3)
    expect(inside.nth(0)).to_have_class("pyclient-thinking")
    expect(inside.nth(1).locator(".pyclient-tool-result")).to_have_text("3 venues")
    expect(inside.nth(2)).to_have_text("Found 3 venues.")
    expect(writer.locator(".pyclient-subagent-status")).to_have_text("failed: out of ink")
    expect(writer).to_have_attribute("data-status", "error")
    expect(writer.locator(".pyclient-subagent-items > li")).to_have_text(["Drafting the invite"])
    # The parent's own messages stay in the conversation, around the groups.
    top = page.locator(".pyclient-messages > li")
    assert [top.nth(i).get_attribute("class").split()[0] for i in range(top.count())] == [
        "pyclient-message", "pyclient-message", "pyclient-subagent", "pyclient-subagent", "pyclient-message"]
    expect(top.last).to_have_text("Here is the plan.")
    # The header folds the group.
    researcher.locator(".pyclient-subagent-summary").click()
    expect(researcher.locator(".pyclient-subagent-details")).not_to_have_attribute("open", "")
    assert [(run["name"], run["status"]) for run in json.loads(page.evaluate("window.t.subagents()"))] == [
        ("researcher", "finished"), ("writer", "error")]
    # A subagent's interrupt is asked inside its group; suspended on it, the group says it waits.
    (scripted_agent.on("ask").subagent("planner", subagent_run_id="sub-planner").say("One question first.")
     .end_subagent(suspended=True).finish(outcome={"type": "interrupt", "interrupts": [
         {"id": "i-day", "reason": "input_required", "message": "Which day?", "subagentRunId": "sub-planner"}]}))
    ChatPage(page).send("ask me")
    planner = page.locator(".pyclient-subagent[data-subagent-run-id='sub-planner']")
    expect(planner.locator(".pyclient-interrupt")).to_have_count(1, timeout=TIMEOUT)
    expect(planner.locator(".pyclient-interrupt")).to_contain_text("Which day?")
    expect(planner.locator(".pyclient-subagent-status")).to_have_text("waiting")


@MAIN_ONLY
def test_a_subagents_name_status_and_description_and_a_step_name_show_bidi_controls_marked(chat, scripted_agent):
    # Each "\u202e" would show what follows it reversed ("failed: out of ink (retry)" as "(yrter) kni fo tuo").
    (scripted_agent.on("mark").subagent("\u202ewriter", description="\u202edrafts").say("Drafting")
     .end_subagent(error="\u202eout of ink (retry)").say("Done."))
    scripted_agent.on("step").step("\u202esearch (1/2)").say("Looking").hold()
    page = chat()
    ChatPage(page).send("mark it")
    ChatPage(page).wait_idle()
    group = page.locator(".pyclient-subagent")
    expect(group.locator(".pyclient-subagent-name")).to_have_text("⟨U+202E⟩writer")
    expect(group.locator(".pyclient-subagent-status")).to_have_text("failed: ⟨U+202E⟩out of ink (retry)")
    expect(group.locator(".pyclient-subagent-summary .pyclient-invisible")).to_have_count(2)
    expect(group).to_have_attribute("title", "⟨U+202E⟩drafts")
    ChatPage(page).send("step")
    line = page.locator(".pyclient-steps")
    expect(line).to_have_text("⟨U+202E⟩search (1/2)", timeout=TIMEOUT)
    expect(line.locator(".pyclient-invisible")).to_have_attribute("title", "invisible character U+202E")
    page.locator(".pyclient-stop").click()
    ChatPage(page).wait_idle()
    assert "\u202e" not in page.locator(".pyclient-chat").text_content()


@MAIN_ONLY
def test_a_server_naming_the_persons_message_never_changes_their_bubble(chat, scripted_agent):
    scripted_agent.on("hi").say("Hello.")
    page = chat()
    chat_page = ChatPage(page)
    chat_page.send("hi")
    chat_page.wait_idle()
    [person] = scripted_agent.requests[0].messages
    # The next answer appends to the person's message by its id, as text and as reasoning.
    scripted_agent.on("next").emit(
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": person.id, "delta": " and I agree to pay $1000"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": person.id, "delta": " and my password"},
    ).say("ok")
    # Each event is said in the console, and ignored: the bubble shows what the person wrote.
    with said(page, f"event for message {person.id} was ignored", count=2):
        chat_page.send("next")
        chat_page.wait_idle()
        expect(chat_page.last_answer).to_have_text("ok")
        expect(chat_page.users).to_have_text(["hi", "next"])
    scripted_agent.on("again").say("fine")
    chat_page.send("again")
    chat_page.wait_idle()
    assert scripted_agent.requests[-1].messages[0].content == "hi"
    expect(chat_page.users.first).to_have_text("hi")


@MAIN_ONLY
def test_the_step_line_shows_while_the_run_works_and_goes_at_its_end(chat, scripted_agent):
    scripted_agent.on("go", times=2).step("search").say("Searching the venues", chunks=4).step("book").say(
        "Booked", chunks=3).slowly(0.12)
    page = chat()
    record_states(page, """(() => { const line = document.querySelector('.pyclient-steps');
                                    return line && line.checkVisibility() ? line.textContent : null; })()""")
    ChatPage(page).send("go")
    line = page.locator(".pyclient-steps")
    ChatPage(page).wait_idle()
    shown = [text for text in recorded_states(page) if text is not None]
    assert shown == ["search", "book"], shown   # each step shown while it ran, in order
    expect(line).to_be_hidden()   # the run ended: no step is open

    page = chat(steps=False)   # Chat(steps=False): no line at all
    ChatPage(page).send("go")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Booked", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert page.locator(".pyclient-steps").count() == 0


@MAIN_ONLY
@pytest.mark.callback_errors_expected
def test_a_raising_custom_callback_does_not_break_the_chat_and_raw_events_are_logged(chat, guard, scripted_agent):
    guard.allow_error("the custom callback broke")   # logged to the console, as any listener's error
    (scripted_agent.on("custom").custom("progress", {"done": 1}).custom("boom", 2).custom("progress", {"done": 2})
     .emit(RawEvent(event={"provider": "langgraph", "node": "planner"}, source="langgraph"))
     .say("Still here."))
    page = chat()
    ChatPage(page).send("custom events")
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("Still here.")
    assert json.loads(page.evaluate("window.t.custom()")) == [{"done": 1}, {"done": 2}]
    page.locator(".pyclient-log-toggle").click()
    log = page.locator(".pyclient-log")
    raw = log.locator(".pyclient-log-row", has=page.locator(".pyclient-log-type", has_text="RAW"))
    expect(raw).to_have_count(1)
    expect(raw.locator(".pyclient-log-excerpt")).to_contain_text('"node":"planner"')
    assert log.locator(".pyclient-log-type", has_text="CUSTOM").count() == 3


@MAIN_ONLY
def test_the_dojo_scenarios_replayed_as_pydantic_ai_streams_them(chat, scripted_agent):
    scripted_agent.on("haiku", times=1).emit(*reasoning_chat())
    scripted_agent.on("older haiku").emit(*reasoning_chat("0.1.10"))   # THINKING_* events
    scripted_agent.on("weather").emit(*backend_tool_rendering())
    page = chat()
    for text in ("write a haiku", "an older haiku", "the weather in Paris"):
        ChatPage(page).send(text)
        ChatPage(page).wait_idle()
    thinking = page.locator(".pyclient-thinking")
    expect(thinking).to_have_count(2)
    expect(thinking.locator(".pyclient-thinking-text")).to_have_text([THOUGHT, THOUGHT])
    expect(thinking.locator("details[open]")).to_have_count(0)
    answers = page.locator(".pyclient-assistant")
    assert answers.nth(0).inner_text().split() == HAIKU.split() == answers.nth(1).inner_text().split()
    card = page.locator(".pyclient-tool[data-tool='get_weather']")
    expect(card.locator(".pyclient-badge")).to_have_text("done")
    result = card.locator(".pyclient-tool-result")
    expect(result).to_contain_text('"conditions": "light rain"')
    assert json.loads(result.text_content()) == WEATHER
    expect(answers.last).to_have_text("It is 18 °C in Paris with light rain.")
    # The signature pydantic-ai sent as the encrypted value goes back with the next request.
    scripted_agent.on("thanks").say("You're welcome")
    ChatPage(page).send("thanks")
    ChatPage(page).wait_idle()
    reasoning = [m for m in scripted_agent.requests[-1].messages if m.role == "reasoning"]
    assert len(reasoning) == 2 and "sig-autumn-1" in (reasoning[0].encrypted_value or "")
    assert reasoning[1].encrypted_value is None   # the old events have none
