"""AG-UI interrupts in the chat, in Chromium: a server tool's approval on its tool card, LangGraph's
questions as interrupt cards, a new message that cancels what is open, a run the agent cancelled.

The page is web/tests/interrupts.html, booted once per agent kind: each test opens a new `Chat`
on a new thread of an Agent at the server it talks to (`window.t.open(url)`). The real servers are the dev server's (`live_server`): `/agent/approval`, a
pydantic-ai agent whose backend tool `delete_account` needs approval (`approval_log`), and
LangGraph's interrupt graph under `/lg` (`langgraph_interrupts`: `/lg/agent` speaks the legacy
`on_interrupt` channel, `/lg/agent-outcome` the 1.0 outcome). What no real server here sends
(a cancelled outcome, an interrupt that expires, reasons with a page renderer, an interrupt
without a schema) comes from pyclient's own `scripted_agent`, on the plugin's site.
Every click that answers is Playwright's, a trusted one; the tests that click from page
JavaScript (`element.click()`, untrusted) check that nothing is answered. The tests that answer
from a card or form (approve, edit, reject, a question's form, free text, a page renderer) run
with the page's Python on the main thread and in a worker (`BOTH_MODES`); what cancels or marks
an interrupt (a new message, an outcome, expiry, a schema's cost) is the driver's, `MAIN_ONLY`.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, ChatPage, module_page, turn

TIMEOUT = 30_000
SCHEMA = {"type": "object", "properties": {"colour": {"type": "string"}}, "required": ["colour"]}
DELETE_CARD = ".pyclient-tool[data-tool='delete_account']"


def interrupts(page) -> list[dict]:
    return json.loads(page.evaluate("window.t.interrupts()"))


live_guard = module_page("/tests/interrupts.html")
"""The page on the dev server (its real agents), booted once for the module (in each mode)."""


@pytest.fixture
def chat_on(live_guard):
    """`chat_on(path)`: a new chat on the agent at `path` of the dev server; the page it is on."""
    with turn(live_guard) as guard:
        def open_(agent: str):
            guard.page.evaluate("url => window.t.open(url)", agent)
            return guard.page
        yield open_


def ask_to_delete(page):
    """Send the message that makes the agent call `delete_account("bob")`; return the card once it waits."""
    ChatPage(page).send("delete bob's account")
    card = page.locator(DELETE_CARD)
    expect(card.locator(".pyclient-badge")).to_have_text("awaiting approval", timeout=TIMEOUT)
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    return card


# -- a server tool's approval (pydantic-ai) -------------------------------------------------------

@BOTH_MODES
def test_approve_runs_the_server_tool_once(chat_on, approval_log):
    approval_log.clear()
    page = chat_on("/agent/approval")
    card = ask_to_delete(page)
    # The same bar as a client tool's approval: the question, the agent's words, three buttons.
    bar = card.locator(".pyclient-approval")
    expect(bar.locator(".pyclient-approval-question")).to_have_text(
        "Allow delete_account to run with the arguments above?")
    expect(bar.locator(".pyclient-tool-description")).to_have_text('Approve delete_account({"user":"bob"})?')
    assert bar.locator("button").all_text_contents() == ["Approve", "Reject", "Edit"]
    expect(bar.locator("button").first).to_have_attribute("data-for", "open")
    [asked] = interrupts(page)
    expect(bar).to_have_attribute("data-interrupt-id", asked["id"])
    expect(card.locator(".pyclient-tool-args")).to_have_text('{"user": "bob"}')
    expect(page.locator(".pyclient-run-status")).to_have_text("Waiting for you")
    assert page.locator(".pyclient-interrupt").count() == 0  # the tool card shows it, no card of its own

    bar.locator(".pyclient-approve").click()
    ChatPage(page).wait_idle()
    expect(card.locator(".pyclient-badge")).to_have_text("done")
    expect(card.locator(".pyclient-tool-result")).to_have_text("deleted bob")
    assert card.locator(".pyclient-approval").count() == 0  # the bar went with its moment
    expect(page.locator(".pyclient-assistant").last).to_have_text("Answer: deleted bob")
    assert approval_log.executed == ["bob"]
    assert approval_log.resumes == [[{"interruptId": asked["id"], "status": "resolved",
                                      "payload": {"approved": True}}]]
    assert interrupts(page)[0]["status"] == "resolved"


@BOTH_MODES
def test_approve_with_edited_arguments(chat_on, approval_log):
    approval_log.clear()
    page = chat_on("/agent/approval")
    card = ask_to_delete(page)
    card.locator(".pyclient-edit-toggle").click()
    # The server's tool has no client schema: the field is typed by the argument's value.
    field = card.locator(".pyclient-edit input[name='user']")
    expect(field).to_have_value("bob")
    expect(card.locator(".pyclient-edit .pyclient-field-label")).to_have_text("user")  # not "(optional)"
    assert field.get_attribute("type") == "text"
    field.fill("carol")
    card.locator(".pyclient-approve").click()
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("Answer: deleted carol")
    assert approval_log.executed == ["carol"]
    assert approval_log.resumes[-1][0]["payload"] == {"approved": True, "editedArgs": {"user": "carol"}}


@BOTH_MODES
def test_reject_tells_the_agent_why_and_a_synthetic_click_answers_nothing(chat_on, approval_log):
    approval_log.clear()
    page = chat_on("/agent/approval")
    card = ask_to_delete(page)
    # A page script's click is not the person's consent: nothing is answered, nothing is sent.
    page.evaluate(f"document.querySelector(\"{DELETE_CARD} .pyclient-approve\").click()")
    page.evaluate(f"document.querySelector(\"{DELETE_CARD} .pyclient-reject\").click()")
    assert len(approval_log.bodies) == 1 and approval_log.resumes == [] and approval_log.executed == []
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    assert interrupts(page)[0]["status"] == "open"
    # The person's own click answers. It is the barrier for the script's clicks: its resume is
    # the second request and the only resume, so theirs sent nothing, however late.
    card.locator(".pyclient-reject").click()
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("Denied: the user clicked Reject")
    assert approval_log.executed == []
    assert len(approval_log.bodies) == 2
    assert [[entry["payload"] for entry in resume] for resume in approval_log.resumes] == [
        [{"approved": False, "reason": "the user clicked Reject"}]]
    assert card.locator(".pyclient-approval").count() == 0
    expect(card.locator(".pyclient-badge")).to_have_text("failed")  # as a client tool's rejected call


@MAIN_ONLY
def test_a_new_message_cancels_the_open_approval(chat_on, approval_log):
    approval_log.clear()
    page = chat_on("/agent/approval")
    card = ask_to_delete(page)
    # The run waits only for the person: the input and Send stay enabled.
    expect(page.locator(".pyclient-form input")).to_be_enabled()
    expect(page.locator(".pyclient-send")).to_be_enabled()
    ChatPage(page).send("never mind, say hi")
    ChatPage(page).wait_idle()
    [asked] = interrupts(page)
    assert asked["status"] == "cancelled" and asked["note"] == "the user sent a new message instead"
    expect(card.locator(".pyclient-badge")).to_have_text("cancelled")
    assert card.locator(".pyclient-approval").count() == 0
    assert approval_log.executed == []
    # One request after the first: it cancels the interrupt and carries the new message.
    assert len(approval_log.bodies) == 2
    last = approval_log.bodies[-1]
    assert last["resume"] == [{"interruptId": asked["id"], "status": "cancelled"}]
    assert last["messages"][-1]["role"] == "user" and last["messages"][-1]["content"] == "never mind, say hi"
    expect(page.locator(".pyclient-user").last).to_have_text("never mind, say hi")


# -- LangGraph's questions: interrupt cards ------------------------------------------------------

@pytest.fixture
def graph_log(langgraph_interrupts):
    log = langgraph_interrupts.state.log
    log.clear()
    return log


def ask_colour(chat_on, path: str):
    page = chat_on("/lg" + path)
    ChatPage(page).send("pick a colour")
    card = page.locator(".pyclient-interrupt").first
    expect(card).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    return page, card


@BOTH_MODES
@pytest.mark.parametrize("path", ["/agent", "/agent-outcome"])
def test_langgraph_question_answered_from_its_form(chat_on, graph_log, path):
    page, card = ask_colour(chat_on, path)
    expect(card.locator(".pyclient-interrupt-message")).to_have_text("Which colour?")
    expect(card.locator(".pyclient-badge")).to_have_text("waiting for your answer")
    expect(card).to_have_attribute("data-reason", "langgraph:interrupt")
    expect(page.locator(".pyclient-run-status")).to_have_text("Waiting for your answer")
    # The form is the response schema's: one required text field, "colour".
    field = card.locator("input[name='colour']")
    expect(field).to_have_attribute("type", "text")
    expect(card.locator(".pyclient-field-label")).to_have_text("colour")
    assert card.locator("button").all_text_contents() == ["Send", "Cancel"]

    # Empty: refused in the card, nothing sent.
    card.locator(".pyclient-answer-send").click()
    expect(card.locator(".pyclient-approval-error")).to_have_text("colour: enter a value.")
    assert len(graph_log.bodies) == 1 and graph_log.answers == []
    assert interrupts(page)[0]["status"] == "open"

    # The valid answer is the barrier: the second request, and the only answer.
    field.fill("blue")
    card.locator(".pyclient-answer-send").click()
    ChatPage(page).wait_idle()
    assert graph_log.answers == [{"colour": "blue"}] and len(graph_log.bodies) == 2
    expect(page.locator(".pyclient-assistant").last).to_have_text('You chose {"colour": "blue"}')
    expect(card).to_have_attribute("data-status", "resolved")
    expect(card.locator(".pyclient-badge")).to_have_text("answered")
    expect(card.locator(".pyclient-interrupt-outcome")).to_be_hidden()  # the badge says it
    expect(card.locator(".pyclient-approval-error")).to_be_hidden()
    expect(card.locator(".pyclient-buttons")).to_be_hidden()
    expect(field).to_be_disabled()
    expect(field).to_have_value("blue")  # the record of the answer
    # The card sits after the run that asked it, before the answer that followed.
    items = page.locator(".pyclient-messages > li")
    classes = [items.nth(i).get_attribute("class") for i in range(items.count())]
    assert [c.split()[0] for c in classes] == ["pyclient-message", "pyclient-interrupt", "pyclient-message"], classes


# The legacy endpoint only: the 1.0 one takes the same path (tests/integration/test_interrupts_langgraph.py).
@MAIN_ONLY
@pytest.mark.parametrize("path", ["/agent"])
def test_langgraph_question_cancelled(chat_on, graph_log, path):
    page, card = ask_colour(chat_on, path)
    # A script's click does nothing.
    page.evaluate("document.querySelector('.pyclient-interrupt .pyclient-answer-cancel').click()")
    page.evaluate("document.querySelector('.pyclient-interrupt .pyclient-answer-send').click()")
    assert len(graph_log.bodies) == 1 and interrupts(page)[0]["status"] == "open"

    # The person's Cancel is the barrier for the script's clicks: the only answer there is.
    card.locator(".pyclient-answer-cancel").click()
    ChatPage(page).wait_idle()
    [asked] = interrupts(page)
    assert asked["status"] == "cancelled"
    assert graph_log.answers == [{"__agui_cancelled__": True, "interrupt_id": asked["id"]}]  # the only one
    assert len(graph_log.bodies) == 2
    expect(card).to_have_attribute("data-status", "cancelled")
    expect(card.locator(".pyclient-badge")).to_have_text("cancelled")
    expect(card.locator(".pyclient-interrupt-outcome")).to_have_text("cancelled: the user clicked Cancel")
    expect(card.locator(".pyclient-buttons")).to_be_hidden()
    assert graph_log.answers == [{"__agui_cancelled__": True, "interrupt_id": asked["id"]}]


# The legacy endpoint only: the 1.0 one takes the same path (tests/integration/test_interrupts_langgraph.py).
@MAIN_ONLY
@pytest.mark.parametrize("path", ["/agent"])
def test_a_new_message_cancels_the_open_question(chat_on, graph_log, path):
    page, first = ask_colour(chat_on, path)
    expect(page.locator(".pyclient-send")).to_be_enabled()
    ChatPage(page).send("never mind")
    # The question is cancelled (the graph is told), the message goes, and the graph asks again.
    expect(first).to_have_attribute("data-status", "cancelled", timeout=TIMEOUT)
    expect(first.locator(".pyclient-interrupt-outcome")).to_have_text(
        "cancelled: the user sent a new message instead")
    cards = page.locator(".pyclient-interrupt")
    expect(cards).to_have_count(2, timeout=TIMEOUT)
    second = cards.nth(1)
    expect(second).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    asked = interrupts(page)
    assert graph_log.answers[0] == {"__agui_cancelled__": True, "interrupt_id": asked[0]["id"]}
    assert [m["content"] for m in graph_log.bodies[-1]["messages"] if m["role"] == "user"][-1] == "never mind"
    # Each card after the run that asked it: the first before what the graph made of the
    # cancellation (ag-ui-langgraph sends it alone, first) and the new message, the second after.
    items = page.locator(".pyclient-messages > li")
    texts = [(items.nth(i).get_attribute("data-interrupt-id") or items.nth(i).text_content()).strip()
             for i in range(items.count())]
    assert texts[:2] == ["pick a colour", asked[0]["id"]] and texts[2].startswith("You chose"), texts
    assert texts[3:] == ["never mind", asked[1]["id"]], texts
    page.locator(".pyclient-stop").click()
    ChatPage(page).wait_idle()
    expect(second).to_have_attribute("data-status", "cancelled")


# -- scripted: what the real servers here do not send --------------------------------------------

scripted_guard = module_page("/tests/interrupts.html", site="plugin")
"""The page on the plugin's site, whose `/agent` is the running test's `scripted_agent`."""


@pytest.fixture
def scripted(scripted_guard, serving):
    """A new chat on this test's `scripted_agent`; the page it is on."""
    with turn(scripted_guard) as guard:
        guard.page.evaluate("url => window.t.open(url)", "/agent")
        yield guard.page


def outcome(*items: dict) -> dict:
    return {"outcome": {"type": "interrupt", "interrupts": list(items)}}


@MAIN_ONLY
def test_a_run_the_agent_cancelled_is_marked(scripted, scripted_agent):
    scripted_agent.on("cancel me").say("Starting…").finish(outcome={"type": "cancelled"})
    page = scripted
    ChatPage(page).send("cancel me")
    ChatPage(page).wait_idle()
    notice = page.locator(".pyclient-notice[data-kind='cancelled']")
    expect(notice).to_have_text("Cancelled by the agent")
    expect(page.locator(".pyclient-run-status")).to_have_text("Cancelled by the agent")
    # After the answer it cut.
    expect(page.locator(".pyclient-messages > li").last).to_have_attribute("data-kind", "cancelled")
    assert page.locator(".pyclient-notice[data-kind='stopped']").count() == 0


@BOTH_MODES
def test_an_interrupt_without_a_schema_takes_text_or_json(scripted, scripted_agent):
    scripted_agent.on("free", times=1).finish(**outcome({"id": "i-free", "reason": "input_required",
                                                "message": "Say \u202eanything"}))
    scripted_agent.otherwise().say("thanks")
    page = scripted
    ChatPage(page).send("free")
    card = page.locator(".pyclient-interrupt")
    expect(card).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    # The agent's words are text, the bidi override made visible.
    expect(card.locator(".pyclient-interrupt-message")).to_have_text("Say ⟨U+202E⟩anything")
    expect(card.locator(".pyclient-interrupt-message .pyclient-invisible")).to_have_count(1)
    box = card.locator("textarea")
    expect(card.locator(".pyclient-field-label")).to_have_text("Your answer")
    box.fill("just text")
    card.locator(".pyclient-answer-send").click()
    ChatPage(page).wait_idle()
    resume = scripted_agent.requests[-1].resume
    assert [(entry.interrupt_id, entry.status, entry.payload) for entry in resume] == [
        ("i-free", "resolved", "just text")]
    expect(card.locator(".pyclient-badge")).to_have_text("answered")


@MAIN_ONLY
def test_a_forms_labels_hints_and_options_show_bidi_controls_marked(scripted, scripted_agent):
    # Unmarked, "\u202e" reverses what follows it: the label "Nickname (optional)" showed as
    # "(lanoitpo) emankciN", the option "pay 10" as "01 yap".
    schema = {"type": "object", "properties": {
        "nickname": {"type": "string", "title": "\u202eNickname", "description": "\u202eshown to others"},
        "plan": {"type": "string", "enum": ["\u202epay 10", "free"], "title": "Plan"}}, "required": ["plan"]}
    scripted_agent.on("form", times=1).finish(**outcome({"id": "i-form", "reason": "input_required",
                                                         "message": "Your details?", "responseSchema": schema}))
    page = scripted
    ChatPage(page).send("form")
    card = page.locator(".pyclient-interrupt")
    expect(card).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    labels = card.locator(".pyclient-field-label")
    expect(labels).to_have_text(["⟨U+202E⟩Nickname (optional)", "Plan"])
    expect(labels.first.locator(".pyclient-invisible")).to_have_attribute("title", "invisible character U+202E")
    expect(card.locator(".pyclient-field-hint")).to_have_text("⟨U+202E⟩shown to others")
    expect(card.locator(".pyclient-field-hint .pyclient-invisible")).to_have_count(1)
    expect(card.locator("option")).to_have_text(["—", "⟨U+202E⟩pay 10", "free"])   # an option holds text only
    assert "\u202e" not in card.text_content()
    card.locator("select").select_option(label="⟨U+202E⟩pay 10")   # the answer is the schema's value
    card.locator(".pyclient-answer-send").click()
    expect(card.locator(".pyclient-badge")).to_have_text("answered", timeout=TIMEOUT)
    assert scripted_agent.wait_for_resume("i-form").payload["plan"] == "\u202epay 10"


@MAIN_ONLY
def test_an_expired_interrupt_says_so(scripted, scripted_agent):
    page = scripted
    soon = (datetime.now(timezone.utc) + timedelta(seconds=4)).isoformat()
    scripted_agent.on("hurry", times=1).finish(**outcome({"id": "i-soon", "reason": "input_required",
                                                          "message": "Quick!", "responseSchema": SCHEMA,
                                                          "expiresAt": soon}))
    scripted_agent.otherwise().say("too late")
    ChatPage(page).send("hurry")
    card = page.locator(".pyclient-interrupt")
    expect(card).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    expect(card).to_have_attribute("data-status", "expired", timeout=TIMEOUT)
    expect(card.locator(".pyclient-badge")).to_have_text("expired")
    expect(card.locator(".pyclient-interrupt-outcome")).to_have_text(
        "expired: this question can no longer be answered")
    expect(card.locator(".pyclient-buttons")).to_be_hidden()
    assert interrupts(page)[0]["status"] == "expired"
    ChatPage(page).wait_idle()
    # A barrier: the next message is the second request, and it resumes nothing.
    ChatPage(page).send("and now?")
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("too late")
    assert len(scripted_agent.requests) == 2 and not scripted_agent.requests[-1].resume  # not resumed


@BOTH_MODES
@pytest.mark.callback_errors_expected
def test_interrupt_renderers_replace_the_form_and_a_broken_one_is_contained(scripted, scripted_guard, scripted_agent):
    scripted_guard.allow_error("the interrupt renderer broke")
    scripted_agent.on("pick", times=1).finish(**outcome(
        {"id": "i-pick", "reason": "custom:pick", "message": "Pick", "responseSchema": SCHEMA},
        {"id": "i-boom", "reason": "custom:boom", "message": "Colour for <b>boom</b>?", "responseSchema": SCHEMA}))
    scripted_agent.otherwise().say("picked")
    page = scripted
    ChatPage(page).send("pick")
    picked = page.locator(".pyclient-interrupt[data-reason='custom:pick']")
    broken = page.locator(".pyclient-interrupt[data-reason='custom:boom']")
    expect(picked).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    # The page's view replaces the message and the form; Cancel stays.
    expect(picked.locator(".picker")).to_contain_text("Pick one (open)")
    expect(picked.locator(".pyclient-interrupt-default")).to_be_hidden()
    expect(picked.locator(".pyclient-answer-send")).to_be_hidden()
    expect(picked.locator(".pyclient-answer-cancel")).to_be_visible()
    # The broken renderer: a contained fallback, and the default form to answer with.
    expect(broken.locator(".pyclient-render-error")).to_contain_text("the interrupt renderer broke <b>")
    expect(broken.locator(".pyclient-interrupt-message")).to_have_text("Colour for <b>boom</b>?")
    assert broken.locator("b").count() == 0
    # The view's own answers go through interrupt.resolve (its schema still checked).
    picked.locator(".pick-bad").click()
    expect(picked.locator(".pick-error")).to_contain_text("colour: must be a string")
    picked.locator(".pick-red").click()
    expect(picked).to_have_attribute("data-status", "resolved")
    expect(picked.locator(".picker")).to_have_text("Pick one (resolved) ")
    broken.locator("input[name='colour']").fill("green")
    broken.locator(".pyclient-answer-send").click()
    ChatPage(page).wait_idle()
    resume = scripted_agent.requests[-1].resume
    assert sorted((entry.interrupt_id, json.dumps(entry.payload)) for entry in resume) == [
        ("i-boom", '{"colour": "green"}'), ("i-pick", '{"colour": "red"}')]


@MAIN_ONLY
def test_an_answer_the_schema_refuses_is_shown_and_an_approval_without_a_card_gets_one(
        scripted, scripted_agent):
    count = {"type": "object", "properties": {"count": {"type": "integer", "minimum": 1}}, "required": ["count"]}
    approval = {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}
    scripted_agent.on("ask twice", times=1).finish(**outcome(
        {"id": "i-count", "reason": "input_required", "message": "How many?", "responseSchema": count},
        {"id": "i-ghost", "reason": "tool_call", "toolCallId": "no-such-call", "message": "Run it?",
         "responseSchema": approval}))
    scripted_agent.otherwise().say("done")
    page = scripted
    ChatPage(page).send("ask twice")
    asked = page.locator(".pyclient-interrupt[data-interrupt-id='i-count']")
    ghost = page.locator(".pyclient-interrupt[data-interrupt-id='i-ghost']")
    expect(asked).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    # An approval whose call has no card is an interrupt card, its form the schema's.
    expect(ghost.locator(".pyclient-interrupt-message")).to_have_text("Run it?")
    expect(ghost.locator("input[type='checkbox'][name='approved']")).to_have_count(1)
    asked.locator("input[name='count']").fill("0")
    asked.locator(".pyclient-answer-send").click()
    expect(asked.locator(".pyclient-approval-error")).to_contain_text("count: must be at least 1")
    expect(asked.locator("input[name='count']")).to_have_value("0")  # the form keeps what was typed
    assert interrupts(page)[0]["status"] == "open"
    asked.locator("input[name='count']").fill("2")
    asked.locator(".pyclient-answer-send").click()
    expect(asked).to_have_attribute("data-status", "resolved")
    expect(asked.locator(".pyclient-approval-error")).to_be_hidden()
    assert len(scripted_agent.requests) == 1  # one interrupt still open: no resume yet (nor after: below)
    ghost.locator("input[name='approved']").check()
    ghost.locator(".pyclient-answer-send").click()
    ChatPage(page).wait_idle()
    assert len(scripted_agent.requests) == 2
    resume = scripted_agent.requests[-1].resume
    assert sorted((entry.interrupt_id, json.dumps(entry.payload)) for entry in resume) == [
        ("i-count", '{"count": 2}'), ("i-ghost", '{"approved": true}')]


SELF_REFERENCE = {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}, {"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"}
"""A schema whose `$ref` doubles itself at every level (it froze the tab for minutes)."""

DOUBLING = {"type": "object", "properties": {"colour": {"$ref": "#/$defs/d0"}}, "required": ["colour"],
            "$defs": {f"d{i}": {"type": "string", "allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(40)}}
"""The same doubling without a cycle: forty definitions, each two of the next."""


@MAIN_ONLY
def test_schemas_whose_refs_multiply_never_freeze_the_page_and_the_one_too_costly_says_so(scripted, scripted_agent):
    scripted_agent.on("loop", times=1).finish(**outcome(
        {"id": "i-self", "reason": "input_required", "message": "Anything?", "responseSchema": SELF_REFERENCE},
        {"id": "i-double", "reason": "input_required", "message": "Colour?", "responseSchema": DOUBLING})
    ).then_say("thanks")
    scripted_agent.otherwise().say("welcome")
    page = scripted
    ChatPage(page).send("loop")
    itself = page.locator(".pyclient-interrupt[data-interrupt-id='i-self']")
    doubling = page.locator(".pyclient-interrupt[data-interrupt-id='i-double']")
    expect(itself).to_have_attribute("data-status", "open", timeout=TIMEOUT)
    # The schema that refers to itself: each $ref is applied once to the answer, which fits.
    itself.locator("textarea").fill('{"x": 1}')
    itself.locator(".pyclient-answer-send").click()
    expect(itself).to_have_attribute("data-status", "resolved", timeout=TIMEOUT)
    # The one that doubles at each of forty levels: the check stops, and the card says why.
    doubling.locator("input[name='colour']").fill("red")
    doubling.locator(".pyclient-answer-send").click()
    expect(doubling.locator(".pyclient-approval-error")).to_contain_text(
        "Interrupt 'i-double' cannot be answered here: checking the answer against this schema takes more than "
        "20,000 steps", timeout=TIMEOUT)
    expect(doubling.locator(".pyclient-approval-error")).to_contain_text("cancel the interrupt")
    expect(doubling).to_have_attribute("data-status", "open")
    assert len(scripted_agent.requests) == 1   # nothing was sent
    # The page goes on: Cancel resumes the run with both answers, and the next message is sent.
    doubling.locator(".pyclient-answer-cancel").click()
    expect(page.locator(".pyclient-assistant").last).to_have_text("thanks", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    resume = scripted_agent.requests[-1].resume
    assert sorted((entry.interrupt_id, entry.status, json.dumps(entry.payload)) for entry in resume) == [
        ("i-double", "cancelled", "null"), ("i-self", "resolved", '{"x": 1}')]
    ChatPage(page).send("and now?")
    expect(page.locator(".pyclient-assistant").last).to_have_text("welcome", timeout=TIMEOUT)
    assert len(scripted_agent.requests) == 3
