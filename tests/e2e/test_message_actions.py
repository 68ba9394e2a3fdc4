"""The chat's message actions in Chromium: copy, regenerate and edit with branches (‹ 1/2 ›), feedback thumbs.

The page is web/tests/actions.html, booted once per mode on the plugin's site, whose `/agent`
is the running test's `scripted_agent`: each test opens a new `Chat(on_feedback=...)` on a new
stored thread (`window.t.open(thread_id)`; IndexedDB). Every click that acts is Playwright's,
a trusted one; a click from page JavaScript (`element.click()`, untrusted) must do nothing.
The clipboard permissions are granted in the context, and the clipboard is read back from the
page. Copy, edit, feedback and the keyboard run with the page's Python on the main thread and in
a worker (`BOTH_MODES`: the clipboard, typing, trust and focus cross to the worker); regenerate is
clicks the others make and branches Python keeps, `MAIN_ONLY`.
"""

from __future__ import annotations

import itertools
import json

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, ChatPage, module_page, said, turn, wait_ready
from tests.helpers import wait_for

TIMEOUT = 20_000
_ids = itertools.count(1)


actions_guard = module_page("/tests/actions.html", site="plugin", permissions=("clipboard-read", "clipboard-write"))
"""The page on the plugin's site (its `/agent` is the test's `scripted_agent`), booted once."""


@pytest.fixture
def chat(actions_guard, serving, mode):
    """A new chat on a new stored thread of this test's `scripted_agent`; the page it is on."""
    with turn(actions_guard) as guard:
        page = guard.page
        page.evaluate("id => window.t.open(id)", f"{mode}-{next(_ids)}")
        yield page


def talk(page, text: str) -> None:
    """Send `text` from the composer and wait until its answer is in."""
    chat = ChatPage(page)
    chat.send(text)
    chat.wait_idle()


def shown(page) -> list[list[str]]:
    return json.loads(page.evaluate("window.t.messages()"))


def rated_after(page, count: int) -> list[list]:
    """The page's `on_feedback` calls, once there are `count` (a worker's functions answer with
    promises, which `wait_for_function` cannot await: polled from here)."""
    calls: list[list] = []

    def enough() -> bool:
        calls[:] = json.loads(page.evaluate("window.t.rated()"))
        return len(calls) >= count

    wait_for(enough, TIMEOUT / 1000, f"{count} feedback calls")
    assert len(calls) == count, calls
    return calls


def picker_of(bubble):
    return bubble.locator(".pyclient-branch")


def expect_count(bubble, count: str) -> None:
    expect(picker_of(bubble).locator(".pyclient-branch-count")).to_have_attribute("data-count", count)


@BOTH_MODES
def test_copy_puts_the_text_on_the_clipboard_and_says_copied(chat, scripted_agent):
    page = chat
    scripted_agent.on("hello").say("Hello **there**")
    talk(page, "hello")
    answer = page.locator(".pyclient-assistant").last
    # The bar adds no text to the bubble: its glyphs and count are CSS.
    expect(answer).to_have_text("Hello there")
    answer.hover()
    answer.get_by_role("button", name="Copy message").click()
    notice = page.locator(".pyclient-copy-notice")
    expect(notice).to_have_text("Copied")
    expect(notice).to_have_attribute("aria-live", "polite")
    assert page.evaluate("navigator.clipboard.readText()") == "Hello **there**"  # the Markdown source
    expect(answer.locator(".pyclient-copy")).to_have_attribute("data-copied", "true")
    user = page.locator(".pyclient-user").last
    user.hover()
    user.get_by_role("button", name="Copy message").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()) === 'hello'", timeout=TIMEOUT)
    expect(notice).to_have_text("", timeout=TIMEOUT)  # the confirmation is short-lived


@MAIN_ONLY
def test_regenerate_keeps_both_answers_and_paging_back_shows_the_first(chat, scripted_agent):
    page = chat
    scripted_agent.on("greet", times=1).say("First answer")
    scripted_agent.on("greet").say("Second answer")
    talk(page, "greet")
    answer = page.locator(".pyclient-assistant").last
    expect(picker_of(answer)).to_be_hidden()
    answer.hover()
    answer.get_by_role("button", name="Regenerate answer").click()
    ChatPage(page).wait_idle()
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_have_text("Second answer")
    expect_count(answer, "2/2")
    expect(page.locator(".pyclient-assistant")).to_have_count(1)
    # The regenerate's request carried the user message alone.
    assert [m.content for m in scripted_agent.requests[-1].messages] == ["greet"]
    expect(answer.get_by_role("button", name="Next answer")).to_be_disabled()
    answer.get_by_role("button", name="Previous answer").click()
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_have_text("First answer")
    expect_count(answer, "1/2")
    assert shown(page) == [["user", "greet"], ["assistant", "First answer"]]
    # The next message continues the branch shown, and the request holds only it.
    scripted_agent.on("more").say("More")
    talk(page, "more")
    assert [m.content for m in scripted_agent.requests[-1].messages] == ["greet", "First answer", "more"]
    first = page.locator(".pyclient-assistant").first
    first.hover()
    first.get_by_role("button", name="Next answer").click()
    expect(page.locator(".pyclient-assistant")).to_have_text(["Second answer"])
    assert shown(page) == [["user", "greet"], ["assistant", "Second answer"]]


@BOTH_MODES
def test_edit_resends_and_the_agent_receives_only_the_edited_branch(chat, scripted_agent):
    page = chat
    scripted_agent.on("first question").say("Answer one")
    scripted_agent.on("second question").say("Answer two")
    talk(page, "first question")
    user = page.locator(".pyclient-user").last
    user.hover()
    user.get_by_role("button", name="Edit message").click()
    box = page.get_by_label("Edit your message")
    expect(box).to_be_focused()
    expect(box).to_have_value("first question")
    # Escape closes it, the text unchanged; Edit opens it again.
    box.press("Escape")
    expect(box).to_have_count(0)
    expect(user).to_have_text("first question")
    user.get_by_role("button", name="Edit message").click()
    box.fill("second question")
    page.locator(".pyclient-edit-send").click()
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-user")).to_have_text(["second question"])
    expect(page.locator(".pyclient-assistant")).to_have_text(["Answer two"])
    assert [(m.role, m.content) for m in scripted_agent.requests[-1].messages] == [("user", "second question")]
    user = page.locator(".pyclient-user").last
    expect_count(user, "2/2")
    user.get_by_role("button", name="Previous version").click()
    expect(page.locator(".pyclient-user")).to_have_text(["first question"])
    expect(page.locator(".pyclient-assistant")).to_have_text(["Answer one"])
    expect_count(page.locator(".pyclient-user").last, "1/2")


@BOTH_MODES
def test_feedback_fires_on_trusted_clicks_only_and_stays_pressed_after_a_reload(
        chat, scripted_agent, actions_guard, mode):
    page = chat
    scripted_agent.on("rate me", times=1).say("Rate this")
    scripted_agent.on("rate me").say("Or this")
    talk(page, "rate me")
    answer = page.locator(".pyclient-assistant").last
    up, down = answer.locator(".pyclient-rate-up"), answer.locator(".pyclient-rate-down")
    with said(page, "pyclient: ignored an untrusted click"):
        page.evaluate("document.querySelector('.pyclient-assistant .pyclient-rate-up').click()")  # a script's click
    assert json.loads(page.evaluate("window.t.rated()")) == []
    expect(up).to_have_attribute("aria-pressed", "false")
    answer.hover()
    up.click()
    [[message_id, rating]] = rated_after(page, 1)
    assert rating == "up" and page.evaluate("id => window.t.feedback(id)", message_id) == "up"
    expect(up).to_have_attribute("aria-pressed", "true")
    up.click()  # the pressed thumb again clears the rating
    down.click()
    assert rated_after(page, 3)[1:] == [[message_id, None], [message_id, "down"]]
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(up).to_have_attribute("aria-pressed", "false")
    answer.get_by_role("button", name="Regenerate answer").click()
    ChatPage(page).wait_idle()
    expect_count(page.locator(".pyclient-assistant").last, "2/2")
    thread_id = page.evaluate("window.t.thread_id()")
    # A reload: the thread comes back from IndexedDB, its branches and the pressed thumb too.
    page.reload()
    wait_ready(page)
    page.evaluate("id => window.t.open(id)", thread_id)
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_have_text("Or this")
    expect_count(answer, "2/2")
    answer.hover()
    answer.get_by_role("button", name="Previous answer").click()
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_have_text("Rate this")
    expect(answer.locator(".pyclient-rate-down")).to_have_attribute("aria-pressed", "true")
    expect(answer.locator(".pyclient-rate-down")).to_have_css("opacity", "1")  # pressed: shown without hover


@BOTH_MODES
def test_the_bar_is_keyboard_reachable_and_shows_while_focused(chat, scripted_agent):
    page = chat
    scripted_agent.on("keys", times=1).say("Typed answer")
    scripted_agent.on("keys").say("Another answer")
    talk(page, "keys")
    regenerate = page.locator(".pyclient-assistant .pyclient-regenerate")
    page.mouse.move(0, 0)
    expect(regenerate).to_have_css("opacity", "0")
    # Backwards from the message input: the attach button, then the last bubble's bar.
    page.locator(".pyclient-form input").focus()
    for _ in range(12):
        page.keyboard.press("Shift+Tab")
        if page.evaluate("document.activeElement.getAttribute('aria-label')") == "Regenerate answer":
            break
    else:
        pytest.fail("Shift+Tab never reached the Regenerate button")
    expect(regenerate).to_be_focused()
    expect(regenerate).to_have_css("opacity", "1")
    expect(page.locator(".pyclient-assistant .pyclient-copy")).to_have_css("opacity", "1")  # the whole bar shows
    page.keyboard.press("Enter")  # a key's click is trusted: it regenerates
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant")).to_have_text(["Another answer"])
    expect_count(page.locator(".pyclient-assistant").last, "2/2")
    # Synthetic clicks on the other buttons do nothing either.
    page.evaluate("""() => { document.querySelector('.pyclient-assistant .pyclient-branch-previous').click();
                             document.querySelector('.pyclient-user .pyclient-edit').click(); }""")
    # A barrier: the person's own click on Copy, handled after the script's clicks (in order,
    # on either thread); once it says so, theirs had their turn.
    page.locator(".pyclient-assistant .pyclient-copy").click()
    expect(page.locator(".pyclient-copy-notice")).to_have_text("Copied")
    expect(page.locator(".pyclient-assistant")).to_have_text(["Another answer"])
    expect(page.locator(".pyclient-editor")).to_have_count(0)
