"""The demo chat in Chromium: the tool runs in the page, the agent's answer streams in."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import ChatPage


def test_make_it_blue_round_trip(open_page, agent_log):
    page = open_page("/")
    agent_log.clear()
    ChatPage(page).send("make it blue")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=20_000)
    assert page.evaluate("document.body.style.background") == "blue"
    card = page.locator(".pyclient-tool")
    expect(card).to_have_attribute("data-tool", "change_background")
    expect(card).to_have_attribute("data-state", "output-available")
    # The card was made when the call started (no arguments yet) and followed them as they streamed.
    expect(card.locator(".pyclient-tool-args")).to_have_text('{"background": "blue"}')
    expect(card.locator(".pyclient-tool-result")).to_have_text("background is now blue")
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_contain_text("background is now blue")

    # The first request advertised the demo's tools; the follow-up carried the tool result.
    first, follow_up = agent_log.bodies[-2], agent_log.bodies[-1]
    assert sorted(t["name"] for t in first["tools"]) == [
        "capture_canvas", "change_background", "clear_notes", "create_task", "pick_colour", "read_page_text",
        "read_selection", "set_heading", "show_toast"]
    tool_messages = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["background is now blue"]
    assert first["threadId"] == follow_up["threadId"] and first["runId"] != follow_up["runId"]


def test_answer_streams_then_stop_mid_run(open_page, agent_log):
    page = open_page("/")
    # Record the assistant bubble's text every time it changes.
    page.evaluate("""() => new MutationObserver(() => {
        const last = [...document.querySelectorAll('.pyclient-assistant')].pop();
        if (last) (window.__texts ||= []).push(last.textContent);
    }).observe(document.querySelector('#chat'), {subtree: true, childList: true, characterData: true})""")
    agent_log.clear()
    ChatPage(page).send("make it blue slowly")
    # The follow-up's answer streams in slowly (~0.2 s a delta): wait for a few deltas.
    page.wait_for_function("(window.__texts || []).length >= 3", timeout=20_000, polling=25)
    expect(page.locator(".pyclient-stop")).to_be_enabled()
    page.locator(".pyclient-stop").click()
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")
    stopped = page.locator(".pyclient-assistant").last
    partial = stopped.text_content()
    texts = page.evaluate("window.__texts")
    assert len(set(texts)) >= 3, texts  # it streamed: several distinct partial texts
    assert not partial.rstrip().endswith('blue"'), "stop() came after the whole answer"  # its text ends in a newline
    # The stop closed the streaming response: the agent saw the page go away before its end.
    assert agent_log.wait_for_end(1) == "disconnected"
    # The thread works again after a stop. Its run ends after anything the stopped one could
    # still have shown or sent.
    bubbles = page.locator(".pyclient-assistant").count()
    ChatPage(page).send("set the heading to Again")
    expect(page.locator("h1")).to_have_text("Again", timeout=20_000)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=20_000)
    assert page.locator(".pyclient-assistant").nth(bubbles - 1).text_content() == partial
    # The run and its follow-up, then only the new run and its follow-up: nothing after the stop.
    assert len(agent_log.bodies) == 4, [b["messages"][-1] for b in agent_log.bodies]
    assert agent_log.bodies[2]["messages"][-1]["content"] == "set the heading to Again"
    assert agent_log.bodies[3]["messages"][-1]["role"] == "tool"
