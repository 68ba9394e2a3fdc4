"""Hostile handlers and servers in Chromium: a plain `def` handler that raises `CancelledError`
(its call fails, and the round trip completes), a result over the agent's `max_result_chars`
(the follow-up carries it cut, with the note), and an agent URL answered by an HTML page (the
chat says so at once; the page has no error).

The page is web/tests/hostile.html (a `Chat` on `POST /agent`, with the tools `cancels` and
`long_text`, `max_result_chars=1_000`), booted once for the module on the plugin's site and
answered by each test's `scripted_agent`; every test gets a new thread and chat on it.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import ChatPage, module_page, turn

TIMEOUT = 20_000
PATH = "/tests/hostile.html"


shared_page = module_page(PATH, site="plugin")


@pytest.fixture
def page(shared_page, serving):
    """The shared page with a new thread and chat, its `/agent` this test's `scripted_agent`;
    the guard (no uncaught page error, nothing leaving 127.0.0.1) is checked at the test's end."""
    with turn(shared_page) as guard:
        page = guard.page
        generation = page.evaluate("window.t.reset()")
        page.wait_for_selector(f"#chat[data-generation='{generation}']", state="attached")
        yield page


def test_a_sync_handler_raising_cancelled_error_fails_its_call_and_the_round_trip_completes(page, scripted_agent):
    scripted_agent.on("cancel").call("cancels", call_id="c1").then_say(lambda results: f"got: {results[0].content}")
    ChatPage(page).send("cancel")
    expect(page.locator(".pyclient-assistant").last).to_contain_text("got: Tool 'cancels' raised CancelledError",
                                                                     timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert len(scripted_agent.requests) == 2   # the follow-up went out
    (message,) = scripted_agent.tool_messages
    assert message.tool_call_id == "c1"
    assert message.error == message.content
    assert message.error.startswith("Tool 'cancels' raised CancelledError(by hand): nothing cancelled the call")
    expect(page.locator(".pyclient-tool[data-status='failed']")).to_have_count(1)
    expect(page.locator(".pyclient-error")).to_have_count(0)


def test_a_result_over_max_result_chars_reaches_the_follow_up_cut_with_a_note(page, scripted_agent):
    scripted_agent.on("long").call("long_text", n=5_000, call_id="c1").then_say("read it")
    with page.expect_console_message(lambda m: "max_result_chars" in m.text) as warning:
        ChatPage(page).send("long")
    expect(page.locator(".pyclient-assistant").last).to_have_text("read it", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    full = "".join(str(i % 10) for i in range(5_000))
    (message,) = scripted_agent.tool_messages
    assert message.content == (full[:1_000] + "\n\n[truncated: the result was 5,000 characters, over this "
                                              "agent's max_result_chars of 1,000]")
    assert message.error is None
    assert "the result of tool 'long_text' for call c1 is 5,000 characters" in warning.value.text


def test_an_html_answer_is_shown_in_the_chat_at_once_and_the_page_has_no_error(page, scripted_agent):
    scripted_agent.on("hello").respond_with("<!doctype html><title>Sign in</title><form>…</form>")
    with page.expect_console_message(lambda m: "pyclient: the run of thread" in m.text) as line:
        ChatPage(page).send("hello")
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The assistant's server answered with a web page (text/html), not the assistant's reply: the agent URL "
        "may be wrong, or a login page or a proxy is in between. Check the agent URL.", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "error")
    details = page.locator(".pyclient-error-details pre")   # the URL as the page gave it
    expect(details).to_contain_text("The agent at /agent answered HTTP 200 with Content-Type text/html; "
                                    "charset=utf-8, not text/event-stream: that is not an AG-UI event stream, so the "
                                    "body was not read. Check the agent URL and its path")
    expect(details).to_contain_text("a login page or a proxy in between")
    assert "TransportError" in line.value.text and "Sign in" not in line.value.text
    expect(page.locator(".pyclient-assistant")).to_have_count(0)
    assert len(scripted_agent.requests) == 1
