"""The demo page under pyclient's own pytest plugin: `pyclient_page` on `web/`, answered by `scripted_agent`."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect


def test_parallel_calls_round_trip(pyclient_page, scripted_agent):
    scripted_agent.on("blue and hello").call("change_background", background="blue").call(
        "set_heading", text="Hello").then_say("Both done")
    page = pyclient_page.open("/")
    pyclient_page.send("make it blue and hello")
    assert scripted_agent.wait_for_result("set_heading").content == "heading is now 'Hello'"
    pyclient_page.wait_for_status("idle")
    cards = page.locator(".pyclient-tool")
    expect(cards).to_have_count(2)
    expect(cards.nth(0)).to_have_attribute("data-state", "output-available")
    expect(cards.nth(1)).to_have_attribute("data-state", "output-available")
    expect(page.locator("h1")).to_have_text("Hello")
    assert page.evaluate("document.body.style.background") == "blue"
    expect(page.locator(".pyclient-assistant").last).to_have_text("Both done")
    # Exactly one follow-up, carrying both results (one tool message per call).
    assert len(scripted_agent.requests) == 2
    assert sorted(m.content for m in scripted_agent.tool_messages) == ["background is now blue",
                                                                       "heading is now 'Hello'"]


def test_a_rejected_call_never_runs(pyclient_page, scripted_agent):
    scripted_agent.on("clear").call("clear_notes").then_say("Kept them")
    page = pyclient_page.open("/")
    notes = page.locator("#notes li").count()
    pyclient_page.send("clear the notes")
    pyclient_page.reject("clear_notes")
    result = scripted_agent.wait_for_result("clear_notes")
    assert "reject" in result.content.lower()
    pyclient_page.wait_for_status("idle")
    assert page.locator("#notes li").count() == notes > 0
    assert [t.name for t in scripted_agent.requests[0].tools].count("clear_notes") == 1


def test_the_guard_fails_on_a_request_leaving_127_0_0_1(pyclient_page):
    page = pyclient_page.open("/")
    page.evaluate("fetch('http://198.51.100.7/x').catch(() => null)")
    page.wait_for_function("true")
    with pytest.raises(AssertionError, match=r"requests left 127\.0\.0\.1: \['http://198\.51\.100\.7/x'\]"):
        pyclient_page.check()
    pyclient_page.outside.clear()  # caught: the fixture's own check at teardown passes


def test_the_guard_fails_on_an_uncaught_page_error(pyclient_page):
    page = pyclient_page.open("/")
    with page.expect_event("pageerror"):
        page.evaluate("setTimeout(() => { throw new Error('boom from the page') }, 0)")
    with pytest.raises(AssertionError, match="boom from the page"):
        pyclient_page.check()
    pyclient_page.allow_error("boom from the page")
