"""A page under a strict Content-Security-Policy, in Chromium: the policies docs/deployment.md
documents, read from it and sent by the test site as the pages' header (`Site.page_headers`).

Each test boots web/tests/csp.html or csp_nonce.html (web/tests/csp.py) in both modes (the
page's Python on the main thread and in a PyScript worker) and fails on any policy violation:
the page reports each (`securitypolicyviolation`, recorded by an init script) and Chromium
writes it to the console as an error, and any console error at all fails the test, beside the
guard's own checks (uncaught errors, requests leaving 127.0.0.1). The chat's styles are read
back computed, so a stylesheet the policy refused shows as an unstyled chat.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from pyclient.testing import PyclientPage, ScriptedAgent
from tests.e2e.pages import BOTH_MODES, READY, ChatPage

pytestmark = BOTH_MODES

TIMEOUT = 20_000
DEPLOYMENT = Path(__file__).resolve().parents[2] / "docs" / "deployment.md"


def documented_policies() -> list[str]:
    """The policies of docs/deployment.md's "Content-Security-Policy" section, in order."""
    section = DEPLOYMENT.read_text(encoding="utf-8").split("\n## Content-Security-Policy\n", 1)[1].split("\n## ")[0]
    return re.findall(r"^Content-Security-Policy: (.+)$", section, re.MULTILINE)


POLICY, NONCE_POLICY = documented_policies()
PAGE_NONCE = "page-nonce"  # the nonce web/tests/csp_nonce.html's tags carry


def with_nonce(nonce: str) -> str:
    """The documented nonce policy with `nonce` for the styles (the page's scripts keep theirs)."""
    scripts, styles = NONCE_POLICY.split("style-src", 1)
    return scripts.replace("R4nd0m", PAGE_NONCE) + "style-src" + styles.replace("R4nd0m", nonce)


# An answer with an aligned table: markdown-it would write style="text-align:right".
TABLE = "| tool | result |\n| :- | -: |\n| set_heading | done |"


def script(agent: ScriptedAgent) -> None:
    agent.on("go").call("set_heading", text="Styled under a strict policy").call("red_square").then_say(
        lambda results: " | ".join(m.content for m in results if isinstance(m.content, str) and m.content)
        + "\n\n" + TABLE)
    agent.on("hello").say("Hi there.")


RECORD_VIOLATIONS = """window.__violations = [];
document.addEventListener('securitypolicyviolation',
    e => window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));"""


@pytest.fixture
def csp(mode, browser, pyclient_site, browser_context_args, watch_callback_errors, serving):
    """`csp(path, policy)` opens `path` on the plugin's site served with `policy` (in the
    module's mode) and returns the page; at the end, the page must have had no policy
    violation and no console error."""
    script(serving)
    context = browser.new_context(**{**browser_context_args, "base_url": pyclient_site.url,
                                              "color_scheme": "light"})
    watch_callback_errors(context)
    guard = PyclientPage(context.new_page())
    console: list[str] = []

    def record(message) -> None:
        url = message.location.get("url", "")
        # The browser's own request for /favicon.ico (the pages name none) is not the page's.
        if message.type == "error" and not url.endswith("/favicon.ico"):
            console.append(f"{message.text} ({url})")

    guard.page.on("console", record)
    guard.page.add_init_script(RECORD_VIOLATIONS)

    def open_(path: str, policy: str):
        pyclient_site.page_headers = {"Content-Security-Policy": policy}
        guard.open(path, ready=READY, worker=mode == "worker")
        expect(guard.page.locator("html")).to_have_attribute("data-pyclient-mode",
                                                             "worker" if mode == "worker" else "main-thread")
        return guard.page

    try:
        yield open_
        guard.check()
        assert guard.page.evaluate("window.__violations") == []
        assert console == [], "\n".join(console)
    finally:
        pyclient_site.page_headers = {}
        context.close()


def assert_styled(page) -> None:
    """The chat in chat.css's light colours (waiting for a stylesheet that is still loading)."""
    root = page.locator(".pyclient-chat")
    expect(root).to_have_css("background-color", "rgb(255, 255, 255)", timeout=TIMEOUT)
    expect(root).to_have_css("color", "rgb(31, 35, 40)")
    expect(page.locator(".pyclient-messages")).to_have_css("overflow-y", "auto")
    expect(page.locator(".pyclient-send")).to_have_css("cursor", "pointer")


def test_a_page_under_the_documented_strict_csp_boots_styles_its_chat_and_runs_a_tool_round_trip(csp,
                                                                                              scripted_agent):
    page = csp("/tests/csp.html", POLICY)
    # The page's own <link> is the chat's stylesheet: pyclient added none (an inline one would
    # be refused, and recorded as a violation).
    assert page.locator("#pyclient-chat-style").count() == 0
    assert page.locator("link[href='/pyclient/chat.css']").count() == 1
    assert_styled(page)
    ChatPage(page).send("go")
    expect(page.locator("h1")).to_have_text("Styled under a strict policy", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)
    cards = page.locator(".pyclient-tool")
    expect(cards).to_have_count(2)
    expect(cards.locator(".pyclient-badge")).to_have_text(["done", "done"])
    # The image result's thumbnail, from a blob: URL (img-src blob:), loaded.
    thumbnail = page.locator(".pyclient-tool[data-tool='red_square'] .pyclient-tool-media img")
    expect(thumbnail).to_have_attribute("src", re.compile(r"^blob:"))
    page.wait_for_function("img => img.complete && img.naturalWidth === 24", arg=thumbnail.element_handle(),
                           timeout=TIMEOUT)
    answer = page.locator(".pyclient-assistant").last
    expect(answer).to_contain_text("heading is now Styled under a strict policy")
    expect(answer).to_have_css("background-color", "rgb(243, 244, 246)")
    # The table's right-aligned column, aligned by chat.css (a class, not a refused style attribute).
    expect(answer.locator("td").last).to_have_css("text-align", "right")
    heading, square = scripted_agent.tool_messages
    assert heading.content == "heading is now Styled under a strict policy"
    assert [(part.type, part.source.mime_type) for part in square.content] == [("image", "image/png")]


def test_the_chats_stylesheet_argument_links_the_file_under_the_strict_csp(csp):
    page = csp("/tests/csp_nonce.html?stylesheet=/pyclient/chat.css", POLICY)
    link = page.locator("head > link#pyclient-chat-style")
    expect(link).to_have_attribute("href", "/pyclient/chat.css")
    expect(link).to_have_attribute("rel", "stylesheet")
    assert page.locator("style").count() == 0
    assert_styled(page)
    ChatPage(page).send("hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Hi there.", timeout=TIMEOUT)


def test_the_inline_stylesheet_carries_the_pages_nonce(csp):
    page = csp("/tests/csp_nonce.html", with_nonce(PAGE_NONCE))
    style = page.locator("head > style#pyclient-chat-style")
    expect(style).to_have_count(1)
    assert style.evaluate("e => e.nonce") == PAGE_NONCE
    assert_styled(page)
    ChatPage(page).send("hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Hi there.", timeout=TIMEOUT)


def test_the_inline_stylesheet_carries_the_chats_nonce_argument(csp):
    # The policy's style nonce is not the one on the page's tags: only the argument's applies.
    page = csp("/tests/csp_nonce.html?nonce=chat-nonce", with_nonce("chat-nonce"))
    style = page.locator("head > style#pyclient-chat-style")
    expect(style).to_have_count(1)
    assert style.evaluate("e => e.nonce") == "chat-nonce"
    assert_styled(page)
