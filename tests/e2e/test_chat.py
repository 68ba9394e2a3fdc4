"""The demo chat in Chromium: the tool runs in the page, the agent's answer streams in."""

from __future__ import annotations

from playwright.sync_api import expect


def send(page, text: str) -> None:
    page.locator(".pyclient-form input").fill(text)
    page.locator(".pyclient-send").click()


def test_make_it_blue_round_trip(open_page, agent_log):
    page = open_page("/")
    agent_log.clear()
    deltas: list[str] = []
    # Record the assistant bubble's text every time it changes: proves the answer streams.
    page.evaluate("""() => new MutationObserver(() => {
        const last = [...document.querySelectorAll('.pyclient-assistant')].pop();
        if (last) (window.__texts ||= []).push(last.textContent);
    }).observe(document.querySelector('#chat'), {subtree: true, childList: true, characterData: true})""")
    send(page, "make it blue")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=20_000)
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(0, 0, 255)"
    card = page.locator(".pyclient-tool")
    expect(card).to_have_attribute("data-tool", "change_background")
    expect(card).to_have_attribute("data-state", "output-available")
    expect(card.locator(".pyclient-tool-result")).to_have_text("background is now blue")
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_contain_text("background is now blue")
    texts = page.evaluate("window.__texts")
    assert len(set(texts)) > 2, f"the answer arrived in one piece: {texts}"

    # The first request advertised both tools; the follow-up carried the tool result.
    first, follow_up = agent_log.bodies[-2], agent_log.bodies[-1]
    assert sorted(t["name"] for t in first["tools"]) == ["change_background", "set_heading"]
    tool_messages = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_messages] == ["background is now blue"]
    assert first["threadId"] == follow_up["threadId"] and first["runId"] != follow_up["runId"]
