"""The chat UI in Chromium: styling, cards, Markdown, hostile text, scrolling, errors, the event
log, approvals, renderers and a thousand parallel calls.

The page is web/tests/chat_ui.html (a `Chat` with no page CSS of its own, on a gradient body),
opened with pyclient's own pytest plugin (`pyclient_page`) and answered by its `scripted_agent`,
scripted by `script_scenarios` below: the user messages name scenarios ("markdown", "xss",
"many 1000", ...). A test of what crosses to a worker (tests/e2e/pages.py says what does) runs
twice (`BOTH_MODES`): with the page's Python on the main thread and in a PyScript worker (the
page opened with `worker=True`), where the chat renders through its mirror
(pyclient/browser/_page/_mirror) and the page's renderer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from pyclient.testing import ScriptedAgent
from pyclient.testing._worker_pages import WORKER_QUERY
from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, READY, ChatPage, module_page, turn
from tests.helpers import fetch_after_a_frame

TIMEOUT = 20_000

# Main thread only: what Python decides from what it has (`@MAIN_ONLY`: badges' words, Markdown
# and bidi marking, a stop from code, the log's cap, the ARIA structure, limits on arguments, a
# renderer's failure contained, backend calls), made by the same code in both modes while the
# nodes they land in are the other tests' in the worker too; and the tests that boot the page
# again with a query (another agent URL, a theme) to check one outcome's words or one argument,
# whose worker parts (the agent's relative URL resolved against the page, the mirror writing the
# root's data-theme) are every other test's (each boot of a worker page costs seconds).

IDLE = ".pyclient-run-status[data-status='idle']"

# Hostile text delivered as assistant text, tool arguments, tool results and error messages:
# none of it may run, load or become an element.
XSS_PAYLOADS = (
    "<script>window.__xss = 'script'</script>",
    "<img src=x onerror=\"window.__xss='img'\">",
    "<svg onload=\"window.__xss='svg'\"></svg>",
    "<a href=\"javascript:window.__xss='href'\">raw link</a>",
    "[md link](javascript:window.__xss='md')",
    "[x](javascript:alert(1))",
    "![md image](https://127.0.0.1/pixel.png)",
    "![bad image](javascript:window.__xss='imgmd')",
    "<iframe src=\"javascript:window.__xss='iframe'\"></iframe>",
    "<details open ontoggle=\"window.__xss='details'\">",
)
XSS_TEXT = "\n\n".join(XSS_PAYLOADS)

# One paragraph of ~27 KB (no blank line: one Markdown block), with Markdown at both ends.
LONG_PARAGRAPH = "**Start** " + " ".join(f"word{i}" for i in range(4000)) + " *end*."

# Tool arguments nested 30,000 deep, in 60,010 characters: past what pyclient parses (40 levels),
# and deep enough to exhaust the page's stack if anything parsed them with plain `json.loads`.
DEEP = "[" * 30_000 + "]" * 30_000
DEEP_ARGUMENTS = '{"text": ' + DEEP + "}"
DEEP_MAIL = '{"to": ' + DEEP + "}"

UI_MARKDOWN = ("Here is **bold** and *italic*.\n\n- first item\n- second item\n\n"
               "Run `pip install pyclient` then read [the docs](https://example.org/docs).\n\n"
               "<b>raw html</b> stays text.")


def done(results) -> str:
    """The follow-up's answer: "done: " and the results (their count past 5)."""
    contents = [m.content for m in results]
    return "done: " + (" | ".join(contents) if len(contents) <= 5 else f"{len(contents)} results")


def exactly(text: str) -> re.Pattern[str]:
    return re.compile(f"^{re.escape(text)}$")


def script_scenarios(agent: ScriptedAgent) -> None:
    """The scenarios the tests send by name; every call's follow-up is answered by `done`."""
    agent.on(exactly("markdown")).say(UI_MARKDOWN, chunks=6)
    agent.on(exactly("xss")).say(XSS_TEXT, chunks=4).call("echo", text=XSS_TEXT, chunks=2).then_say(done)
    agent.on(exactly("xss error")).fail(XSS_TEXT)
    agent.on(exactly("bidi")).call("echo", text="\u202eecila\u200b", chunks=2).then_say(done)
    agent.on(exactly("approve")).say("I will send it once you approve.").call(
        "send_mail", to="alice@example.org", count=2, urgent=False, tone="calm", chunks=2).then_say(done)
    agent.on(exactly("deep arguments")).call("echo", DEEP_ARGUMENTS, chunks=30).then_say(done)
    agent.on(exactly("deep approve")).call("send_mail", DEEP_MAIL, chunks=30).then_say(done)
    agent.on(exactly("long paragraph")).say(LONG_PARAGRAPH, chunks=300).slowly(0.004)
    for n in (200, 1000):
        turn = agent.on(exactly(f"many {n}")).then_say(done)
        for i in range(n):
            turn.call("tick", n=i, call_id=f"tick-{i}", chunks=2)
    agent.on(exactly("big 1000000 10000")).call("echo", text="x" * 1_000_000, chunks=10_000).then_say(done)
    agent.on(exactly("http error")).http_error(503, "the agent is overloaded")
    agent.on(exactly("not found")).http_error(404, "no agent here.")
    agent.on(exactly("agent error")).fail("the model is down", code="overloaded")
    agent.on(exactly("fail once"), times=1).http_error(503, "the agent is overloaded")
    agent.on(exactly("fail once")).say("recovered")
    agent.on(exactly("hold")).say("Working on it").hold()
    for message in ('call wait_a_bit {"seconds": 0.8}', 'call boom {"x": "1"}',
                    'call create_task {"title": "Water the plants", "due": "friday"}',
                    'call pick_color {"choices": ["blue", "red"]}', 'call pick_color {"choices": ["green"]}'):
        name, arguments = message.split(None, 2)[1:]
        # create_task's renderer must see its title grow: its chunks far enough apart for a
        # busy worker to read each on its own.
        pause = 0.4 if name == "create_task" else 0.15
        agent.on(exactly(message)).call(name, arguments, chunks=4).slowly(pause).then_say(done)
    agent.on(exactly("backend")).server_call("web_search", query="pyclient", result="3 results").say(
        "Found 3 results.").slowly(0.1)
    for said in ("hello", "Say hello", "**not bold**"):
        agent.on(exactly(said)).say(f"reply: {said}", chunks=4)


shared_chat = module_page(None, site="plugin")
"""One guarded page on the plugin's site for the module: booted by the first `open_chat`,
and booted again only for a query; each test gets a new thread and chat on it."""


@pytest.fixture
def chat_page(shared_chat, mode, serving):
    """The shared page, its `/agent` this test's `scripted_agent` with the scenarios scripted."""
    script_scenarios(serving)
    shared_chat.mode = mode
    with turn(shared_chat) as guard:
        yield guard


@pytest.fixture
def page(chat_page):
    return chat_page.page


@pytest.fixture
def guard(chat_page):
    return chat_page


def open_chat(chat_page, query: str = ""):
    """The chat page with a new thread and chat: booted for a query (or the first time), else
    the booted page reset (`window.t.reset()`), its emulated colour scheme and routes undone."""
    page = chat_page.page
    page.unroute_all(behavior="ignoreErrors")
    page.emulate_media(color_scheme="null")
    path = "/tests/chat_ui.html"
    worker = chat_page.mode == "worker"
    base = WORKER_QUERY if worker else ""
    if query or urlsplit(page.url)[2:4] != (path, base):
        return chat_page.open(path + (f"?{query}" if query else ""), ready=READY, worker=worker)
    generation = page.evaluate("window.t.reset()")
    page.wait_for_selector(f"#chat[data-generation='{generation}']", state="attached")  # a worker's batch is there
    return page


def record_badges(page) -> None:
    """Record each card status as it is written, with its badge's words ("executing=running"), in
    `window.__badges`: a status that lasts a moment (streaming arguments) is seen however late a
    poll from the test would come."""
    page.evaluate("""() => { window.__badges = [];
        new MutationObserver(records => { for (const r of records) {
            const card = r.target.closest && r.target.closest('.pyclient-tool');
            if (card && r.type === 'attributes') {
                window.__badges.push(card.dataset.status + '=' + card.querySelector('.pyclient-badge')?.textContent);
            }
        }}).observe(document.querySelector('.pyclient-messages'),
                    {subtree: true, attributes: true, attributeFilter: ['data-status']}); }""")


def deduped(values: list) -> list:
    return [v for i, v in enumerate(values) if i == 0 or values[i - 1] != v]


# -- styling -----------------------------------------------------------------------------------

@BOTH_MODES
def test_stylesheet_applied_without_page_css_light_and_dark(page, chat_page):
    page.emulate_media(color_scheme="light")
    open_chat(chat_page)
    root = page.locator(".pyclient-chat")
    assert page.locator("style#pyclient-chat-style").count() == 1
    # The chat is opaque over the page's gradient, in its own light colours.
    assert root.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    assert root.evaluate("e => getComputedStyle(e).color") == "rgb(31, 35, 40)"
    ChatPage(page).send("markdown")
    ChatPage(page).wait_idle()
    bubble = page.locator(".pyclient-assistant").last
    assert bubble.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(243, 244, 246)"
    # The list scrolls inside the chat; the form stays in it.
    assert page.locator(".pyclient-messages").evaluate("e => getComputedStyle(e).overflowY") == "auto"

    page.emulate_media(color_scheme="dark")
    assert root.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(22, 24, 29)"
    assert root.evaluate("e => getComputedStyle(e).color") == "rgb(230, 232, 235)"
    assert bubble.evaluate("e => getComputedStyle(e).color") == "rgb(230, 232, 235)"
    # data-theme overrides the system's preference, both ways.
    root.evaluate("e => e.dataset.theme = 'light'")
    assert root.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
    page.emulate_media(color_scheme="light")
    root.evaluate("e => e.dataset.theme = 'dark'")
    assert root.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(22, 24, 29)"
    # Custom properties theme it from any ancestor.
    page.evaluate("document.body.style.setProperty('--pyclient-accent', 'rgb(1, 2, 3)')")
    assert page.locator(".pyclient-send").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(1, 2, 3)"


def test_theme_argument_forces_dark(page, chat_page):
    page.emulate_media(color_scheme="light")
    open_chat(chat_page, "theme=dark")
    root = page.locator(".pyclient-chat")
    expect(root).to_have_attribute("data-theme", "dark")
    assert root.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(22, 24, 29)"


# -- tool cards --------------------------------------------------------------------------------

@MAIN_ONLY
def test_status_badges_through_a_run(page, chat_page):
    open_chat(chat_page)
    record_badges(page)
    ChatPage(page).send('call wait_a_bit {"seconds": 0.8}')
    card = page.locator(".pyclient-tool")
    expect(card.locator(".pyclient-badge")).to_have_text("done", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert deduped(page.evaluate("window.__badges")) == ["streaming=streaming", "executing=running", "completed=done"]
    expect(card).to_have_attribute("data-state", "output-available")

    ChatPage(page).send("approve")
    approval = page.locator(".pyclient-tool[data-tool='send_mail']")
    expect(approval.locator(".pyclient-badge")).to_have_text("awaiting approval", timeout=TIMEOUT)
    expect(approval).to_have_attribute("data-status", "awaiting_approval")
    expect(page.locator(".pyclient-run-status")).to_have_text("Waiting for you")
    approval.locator(".pyclient-reject").click()
    expect(approval.locator(".pyclient-badge")).to_have_text("failed", timeout=TIMEOUT)
    expect(approval).to_have_attribute("data-state", "output-error")
    ChatPage(page).wait_idle()


@BOTH_MODES
def test_arguments_and_result_are_collapsible(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("approve")
    card = page.locator(".pyclient-tool[data-tool='send_mail']")
    expect(card).to_have_attribute("data-status", "awaiting_approval", timeout=TIMEOUT)
    args_box = card.locator("details.pyclient-tool-args-box")
    expect(args_box).to_have_attribute("open", "")  # open while it asks
    assert json.loads(card.locator(".pyclient-tool-args").text_content())["to"] == "alice@example.org"
    expect(card.locator(".pyclient-tool-result-box")).to_be_hidden()
    card.locator(".pyclient-approve").click()
    done = page.locator(".pyclient-tool[data-tool='send_mail']")
    expect(done).to_have_attribute("data-status", "completed", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect(args_box).not_to_have_attribute("open", "")  # closed once it ran
    result_box = done.locator("details.pyclient-tool-result-box")
    expect(result_box).to_be_visible()
    expect(done.locator(".pyclient-tool-result")).to_be_hidden()  # collapsed
    result_box.locator("summary").click()
    expect(done.locator(".pyclient-tool-result")).to_have_text("sent 2 to alice@example.org")
    args_box.locator("summary").click()
    expect(done.locator(".pyclient-tool-args")).to_be_visible()


# -- Markdown and hostile text -------------------------------------------------------------------

@MAIN_ONLY
def test_markdown_rendering(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("markdown")
    ChatPage(page).wait_idle()
    answer = page.locator(".pyclient-assistant").last
    expect(answer.locator("strong")).to_have_text("bold")
    expect(answer.locator("em")).to_have_text("italic")
    expect(answer.locator("li")).to_have_text(["first item", "second item"])
    expect(answer.locator("code")).to_have_text("pip install pyclient")
    link = answer.locator("a")
    expect(link).to_have_text("the docs")
    expect(link).to_have_attribute("href", "https://example.org/docs")
    expect(link).to_have_attribute("target", "_blank")
    expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
    assert "pyclient-wide" not in answer.get_attribute("class")  # short lines: the bubble fits them
    # Raw HTML stays text.
    assert answer.locator("b").count() == 0
    expect(answer).to_contain_text("<b>raw html</b> stays text.")
    # The user's own message is never Markdown.
    ChatPage(page).send("**not bold**")
    expect(page.locator(".pyclient-user").last).to_have_text("**not bold**")
    assert page.locator(".pyclient-user strong").count() == 0


@BOTH_MODES
def test_a_long_paragraph_streams_in_boxes_and_ends_as_one_rendered_paragraph(page, chat_page):
    from pyclient.browser._widgets._markdown import render

    live_limit, tail_chunk = 8_000, 4_000  # pyclient.browser._widgets._bubbles' (it imports js: page-only)
    open_chat(chat_page)
    # Record, at every change of the answer while it streams, its tail's boxes and the length of
    # its rendered paragraph.
    page.evaluate("""() => { window.__seen = []; const list = document.querySelector('.pyclient-messages');
        new MutationObserver(() => { const a = list.querySelector('.pyclient-assistant');
            if (!a || document.querySelector('.pyclient-run-status').dataset.status !== 'running') return;
            window.__seen.push({boxes: [...a.querySelectorAll('.pyclient-md-tail > div')].map(b => b.textContent.length),
                                live: a.querySelector('.pyclient-md-live').textContent.length,
                                text: a.textContent.replace(/\\s+/g, '')});
        }).observe(list, {subtree: true, childList: true, characterData: true}); }""")
    ChatPage(page).send("long paragraph")
    ChatPage(page).wait_idle()
    seen = page.evaluate("window.__seen")
    whole = LONG_PARAGRAPH.replace(" ", "")
    # While it streamed, the text shown was always the answer so far, in order.
    assert seen and all(whole.replace("*", "").startswith(s["text"].replace("*", "")) for s in seen)
    # Past LIVE_LIMIT the paragraph was not rendered again: its new text went to the tail, in
    # boxes of about TAIL_CHUNK characters (each frame lays out only the last one).
    assert max(s["live"] for s in seen if s["boxes"]) < live_limit + 2_000
    assert max(len(s["boxes"]) for s in seen) >= 3
    assert all(n < tail_chunk + 200 for s in seen for n in s["boxes"][:-1])
    # The list followed the text to its end all along (boxes skipped out of view must not
    # move the end once shown: the user did not scroll, so "Jump to latest" never showed).
    page.wait_for_function("""() => { const e = document.querySelector('.pyclient-messages');
        return e.scrollHeight - e.scrollTop - e.clientHeight < 30; }""", timeout=TIMEOUT)
    assert page.locator(".pyclient-jump").is_hidden()
    # Once it ended: the Markdown of the whole text, as if rendered at once; no tail left.
    answer = page.locator(".pyclient-assistant").last
    assert answer.locator(".pyclient-md-tail").evaluate("t => t.childNodes.length") == 0
    # A line wider than any screen: the bubble has its maximum width without measuring it.
    assert "pyclient-wide" in answer.get_attribute("class")
    width, most = answer.evaluate("a => [a.getBoundingClientRect().width, a.parentElement.clientWidth * 0.85]")
    assert abs(width - most) < 30, (width, most)
    assert "pyclient-wide" not in page.locator(".pyclient-user").last.get_attribute("class")
    assert answer.locator(".pyclient-md-blocks").evaluate("b => b.innerHTML") == ""
    assert answer.locator(".pyclient-md-live").evaluate("b => b.innerHTML") == render(LONG_PARAGRAPH)


@BOTH_MODES
def test_xss_corpus_never_runs_or_loads(page, chat_page):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_chat(chat_page)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(f"{request.method} {request.url}"))
    ChatPage(page).send("xss")        # as assistant text, as tool arguments, as the tool's result, quoted back
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant")).to_have_count(2)
    ChatPage(page).send("xss error")  # as an error message
    expect(page.locator(".pyclient-error")).to_be_visible(timeout=TIMEOUT)
    # A payload that became an element would load its source (img, iframe, the Markdown image)
    # and then fire onerror/onload: a request made after them shows none was asked for.
    fetch_after_a_frame(page, "/tests/chat_ui.html?after-the-payloads")
    assert requests[-1].endswith("/tests/chat_ui.html?after-the-payloads"), requests
    assert all(r.startswith("POST ") and r.endswith("/agent") for r in requests[:-1]), requests

    assert page.evaluate("window.__xss") is None
    assert dialogs == []
    chat = page.locator(".pyclient-chat")
    for tag in ("script", "img", "svg", "iframe", "details[ontoggle]", "[onerror]", "[onload]"):
        # The only svg is the chat's own: the icons of the message actions' buttons.
        assert chat.locator(tag).count() == chat.locator(f".pyclient-action > {tag}.pyclient-icon").count(), tag
    hrefs = chat.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert hrefs and all(h.startswith(("https://", "http://", "mailto:")) for h in hrefs), hrefs
    # Each payload is there as text: in the answer, the arguments, the result and the error.
    card = page.locator(".pyclient-tool[data-tool='echo']")
    assert card.locator(".pyclient-tool-args").text_content() == "text:\n" + XSS_TEXT   # several lines: as written
    for where in (card.locator(".pyclient-tool-result"), page.locator(".pyclient-error-details pre")):
        text = where.text_content()
        assert all(payload in text for payload in XSS_PAYLOADS), where
    answer = page.locator(".pyclient-assistant").first.text_content()
    assert "<script>window.__xss = 'script'</script>" in answer
    assert "[md link](javascript:window.__xss='md')" in answer
    # A Markdown image is a link to it, never an image.
    expect(page.locator(".pyclient-image-link").first).to_have_attribute("href", "https://127.0.0.1/pixel.png")
    assert XSS_TEXT  # the corpus the agent sent


@MAIN_ONLY
def test_bidi_and_zero_width_characters_are_shown(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("bidi")
    ChatPage(page).wait_idle()
    card = page.locator(".pyclient-tool[data-tool='echo']")
    args = card.locator(".pyclient-tool-args")
    expect(args).to_have_text('{"text": "⟨U+202E⟩ecila⟨U+200B⟩"}')
    expect(args.locator(".pyclient-invisible")).to_have_text(["⟨U+202E⟩", "⟨U+200B⟩"])
    expect(card.locator(".pyclient-tool-result")).to_have_text("⟨U+202E⟩ecila⟨U+200B⟩")
    text = card.text_content()
    assert "\u202e" not in text and "\u200b" not in text


# -- following the conversation ---------------------------------------------------------------

def at_bottom(page) -> bool:
    return page.locator(".pyclient-messages").evaluate(
        "e => e.scrollHeight - e.scrollTop - e.clientHeight < 30")


@BOTH_MODES
def test_follows_new_content_until_the_user_scrolls_up(page, chat_page, scripted_agent):
    # The answer stops halfway until the person has scrolled up: its second half must come
    # after, however busy the page.
    halfway = threading.Event()
    scripted_agent.on(exactly("long halfway")).say(
        "".join(f"Paragraph {i} of a long answer.\n\n" for i in range(40)), chunks=40, halfway=halfway)
    open_chat(chat_page)
    messages = page.locator(".pyclient-messages")
    try:
        ChatPage(page).send("long halfway")
        expect(page.locator(".pyclient-assistant").last).to_contain_text("Paragraph 19 of", timeout=TIMEOUT)
        page.wait_for_function("""() => { const e = document.querySelector('.pyclient-messages');
            return e.scrollHeight > e.clientHeight + 200; }""", timeout=TIMEOUT)
        assert at_bottom(page)
        # The user scrolls up: the list stays where they put it, and offers a way back.
        messages.hover()
        page.mouse.wheel(0, -5000)
        expect(page.locator(".pyclient-jump")).to_be_visible()
        top = messages.evaluate("e => e.scrollTop")
        height = messages.evaluate("e => e.scrollHeight")
    finally:
        halfway.set()
    page.wait_for_function(f"document.querySelector('.pyclient-messages').scrollHeight > {height} + 100",
                           timeout=TIMEOUT)
    assert messages.evaluate("e => e.scrollTop") == top
    assert not at_bottom(page)
    page.locator(".pyclient-jump").click()
    expect(page.locator(".pyclient-jump")).to_be_hidden()
    assert at_bottom(page)
    ChatPage(page).wait_idle()
    assert at_bottom(page)  # it followed again to the end
    # The form stays in view: the page did not grow with the conversation.
    box = page.locator(".pyclient-form").bounding_box()
    assert box is not None and box["y"] + box["height"] <= page.viewport_size["height"]


# -- errors, stops, empty state ----------------------------------------------------------------

@BOTH_MODES
def test_error_bubble_and_retry(page, chat_page, scripted_agent):
    open_chat(chat_page)
    with page.expect_console_message(lambda m: "pyclient: the run of thread" in m.text and "503" in m.text):
        ChatPage(page).send("fail once")
    bubble = page.locator(".pyclient-error")
    expect(bubble.locator(".pyclient-error-text")).to_have_text(
        "The assistant's server answered with an error (HTTP 503). Try again in a moment.", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_text("Something went wrong")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "error")
    requests = len(scripted_agent.requests)
    # A script's click: nothing. The chat says so once it has decided.
    with page.expect_console_message(lambda m: "ignored an untrusted click for retry-run" in m.text):
        bubble.locator(".pyclient-retry-run").dispatch_event("click")
    assert len(scripted_agent.requests) == requests
    bubble.locator(".pyclient-retry-run").click()
    expect(page.locator(".pyclient-assistant").last).to_have_text("recovered", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-error")).to_have_count(0)
    assert len(scripted_agent.requests) == requests + 1   # the trusted click's, and no other
    assert scripted_agent.requests[-1].messages[-1].content == "fail once"

    ChatPage(page).send("agent error")  # the agent's own error reads differently
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The assistant ran into a problem and could not answer. Try again.", timeout=TIMEOUT)
    expect(page.locator(".pyclient-error-details pre")).to_contain_text("the model is down")


@BOTH_MODES
def test_network_failure_reads_as_a_connection_problem(page, chat_page):
    open_chat(chat_page)
    page.route("**/agent", lambda route: route.abort("connectionrefused"))   # the page's own origin
    with page.expect_console_message(lambda m: "pyclient: the run of thread" in m.text) as line:
        ChatPage(page).send("hello")
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The assistant could not be reached. Check your connection and try again.", timeout=TIMEOUT)
    assert "CORS" not in line.value.text and "server's log" not in line.value.text
    assert line.value.text.endswith("`await thread.run()` retries.")


def test_a_cross_origin_agent_without_cors_headers_is_named_with_the_flag_that_allows_the_page(
        page, chat_page, scripted_agent):
    # The page on the site's port, the agent on the scripted agent's own port, which sends no CORS
    # headers: the browser refuses the request and tells the page only "Failed to fetch".
    open_chat(chat_page, f"agent={scripted_agent.url}")
    origin = page.evaluate("location.origin")
    with page.expect_console_message(lambda m: "pyclient: the run of thread" in m.text) as line:
        ChatPage(page).send("hello")
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The assistant could not be reached: its server may be down, or it may not allow this page "
        "(CORS: the details say how to allow it). Check your connection and try again.", timeout=TIMEOUT)
    fix = f"`pyclient serve --allow-origin {origin}`"
    expect(page.locator(".pyclient-error-details pre")).to_contain_text(fix)
    expect(page.locator(".pyclient-error-details pre")).to_contain_text("refused it for CORS")
    text = line.value.text
    assert "TypeError: Failed to fetch" in text and fix in text, text
    assert "server's log" not in text and text.endswith("`await thread.run()` retries.")


@BOTH_MODES
def test_a_wrong_agent_url_says_to_check_it_and_not_to_try_again(page, chat_page):
    open_chat(chat_page, "agent=/agnet")   # a typo: the static files answer POST with 405
    with page.expect_console_message(lambda m: "pyclient: the run of thread" in m.text) as line:
        ChatPage(page).send("hello")
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The server at the agent URL does not take POST requests (HTTP 405): it is not an assistant's server "
        "(a static file server answers so). Point the agent URL at the agent server.", timeout=TIMEOUT)
    expect(page.locator(".pyclient-error-details pre")).to_contain_text(
        "answered HTTP 405: Method Not Allowed. Fix: this URL does not take POST requests")
    assert "HTTP 405" in line.value.text and "retries" not in line.value.text and "log" not in line.value.text


def test_a_404_from_the_agent_says_to_check_the_url_and_not_to_try_again(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("not found")
    expect(page.locator(".pyclient-error-text")).to_have_text(
        "The assistant's server answered with an error (HTTP 404): the agent URL may be wrong. "
        "Check it, and its path.", timeout=TIMEOUT)
    details = page.locator(".pyclient-error-details pre")
    expect(details).to_contain_text("answered HTTP 404: no agent here. Fix: check the agent URL")
    assert "again" not in page.locator(".pyclient-error-text").text_content().lower()


@BOTH_MODES
def test_stopped_run_is_marked(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("hold")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Working on it", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_text("Thinking…")
    page.locator(".pyclient-form input").press("Escape")  # Escape in the input stops the run
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-run-status")).to_have_text("Stopped")
    marker = page.locator(".pyclient-stopped")
    expect(marker).to_have_text("Stopped")
    # The marker follows the answer it cut.
    assert marker.evaluate("e => e.previousElementSibling.classList.contains('pyclient-assistant')")
    ChatPage(page).send("hold")
    expect(page.locator(".pyclient-run-status")).to_have_text("Thinking…", timeout=TIMEOUT)
    page.locator(".pyclient-stop").click()
    expect(page.locator(".pyclient-stopped")).to_have_count(2)
    ChatPage(page).send("hello")  # the conversation goes on
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply: hello", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_text("Ready")
    expect(page.locator(".pyclient-stopped")).to_have_count(2)  # a finished run gets no marker


@MAIN_ONLY
def test_a_stop_from_code_is_marked_too(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("hold")
    expect(page.locator(".pyclient-assistant").last).to_have_text("Working on it", timeout=TIMEOUT)
    page.evaluate("window.t.stop()")  # thread.stop() by the page's own code, not the chat's button
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-run-status")).to_have_text("Stopped")
    expect(page.locator(".pyclient-stopped")).to_have_count(1)
    ChatPage(page).send("agent error")  # a failed run is no stop: no marker, its own words
    expect(page.locator(".pyclient-run-status")).to_have_text("Something went wrong", timeout=TIMEOUT)
    expect(page.locator(".pyclient-stopped")).to_have_count(1)


@BOTH_MODES
def test_empty_state_and_suggestions(page, chat_page, scripted_agent):
    open_chat(chat_page)
    empty = page.locator(".pyclient-empty")
    expect(empty).to_be_visible()
    suggestions = page.locator(".pyclient-suggestion")
    expect(suggestions).to_have_text(["markdown", "Say hello"])
    scripted_agent.clear()
    # A script's click sends nothing. The chat says so once it has decided.
    with page.expect_console_message(lambda m: "ignored an untrusted click for suggest" in m.text):
        suggestions.nth(1).dispatch_event("click")
    assert scripted_agent.requests == [] and page.locator(".pyclient-user").count() == 0
    suggestions.nth(1).click()
    expect(page.locator(".pyclient-user")).to_have_text(["Say hello"])
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply: Say hello", timeout=TIMEOUT)
    assert len(scripted_agent.requests) == 1   # the trusted click's, and no other
    expect(empty).to_be_hidden()
    assert page.evaluate("document.activeElement.name") == "message"  # focus back on the input


# -- the event log -----------------------------------------------------------------------------

@BOTH_MODES
def test_event_log_lists_events_and_downloads_them(page, chat_page):
    open_chat(chat_page)
    toggle = page.locator(".pyclient-log-toggle")
    log = page.locator(".pyclient-log")
    expect(log).to_be_hidden()
    ChatPage(page).send("markdown")
    ChatPage(page).wait_idle()
    toggle.click()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(log).to_be_visible()
    types = log.locator(".pyclient-log-type")
    expect(types.first).to_have_text("RUN_STARTED")
    expect(types.last).to_have_text("RUN_FINISHED")
    assert "TEXT_MESSAGE_CONTENT" in types.all_text_contents()
    expect(log.locator(".pyclient-log-time").first).to_have_text("+0 ms")
    assert '"delta"' in log.locator(".pyclient-log-excerpt").nth(2).text_content()
    shown = types.count()
    ChatPage(page).send("Say hello")  # new events while it is open: rows appended
    ChatPage(page).wait_idle()
    added = 8  # RUN_STARTED, TEXT_MESSAGE_START, 4 deltas, TEXT_MESSAGE_END, RUN_FINISHED
    expect(types).to_have_count(shown + added)
    expect(log.locator(".pyclient-log-count")).to_have_text(f"{shown + added} events")
    with page.expect_download() as info:
        log.locator(".pyclient-log-download").click()
    download = info.value
    assert download.suggested_filename.startswith("pyclient-events-") and download.suggested_filename.endswith(".jsonl")
    lines = [json.loads(line) for line in open(download.path(), encoding="utf-8").read().splitlines()]
    assert len(lines) == shown + added
    assert lines[0]["type"] == "RUN_STARTED" and lines[-1]["type"] == "RUN_FINISHED"
    assert "".join(e["delta"] for e in lines if e["type"] == "TEXT_MESSAGE_CONTENT").startswith("Here is **bold**")
    toggle.click()
    expect(log).to_be_hidden()
    expect(toggle).to_have_attribute("aria-expanded", "false")


@MAIN_ONLY
def test_event_log_keeps_500_rows(page, chat_page):
    open_chat(chat_page)
    page.locator(".pyclient-log-toggle").click()
    ChatPage(page).send("many 200")  # 200 calls: 4 events each, and the follow-up
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-log-row")).to_have_count(500)
    count = int(page.locator(".pyclient-log-count").text_content().split()[0])
    assert count > 800
    expect(page.locator(".pyclient-log-type").last).to_have_text("RUN_FINISHED")


# -- accessibility ------------------------------------------------------------------------------

@MAIN_ONLY
def test_accessible_structure(page, chat_page):
    open_chat(chat_page)
    messages = page.locator(".pyclient-messages")
    expect(messages).to_have_attribute("role", "log")
    expect(messages).to_have_attribute("aria-live", "polite")
    expect(page.locator(".pyclient-run-status")).to_have_attribute("aria-live", "polite")
    expect(page.get_by_label("Message")).to_be_visible()  # the input has a label
    expect(page.get_by_label("Message")).to_have_attribute("placeholder", "Say something")
    expect(page.locator(".pyclient-title")).to_have_text("Test chat")
    ChatPage(page).send("approve")  # Send clicked with the mouse: focus goes back to the input
    expect(page.locator(".pyclient-approve")).to_be_visible(timeout=TIMEOUT)
    assert page.evaluate("document.activeElement.name") == "message"
    names = page.locator(".pyclient-chat button").evaluate_all(
        "bs => bs.map(b => (b.getAttribute('aria-label') || b.textContent).trim())")
    assert all(names), names
    page.locator(".pyclient-approve").focus()
    page.keyboard.press("Tab")  # keyboard focus on an approval button is visible
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline == "solid"


# -- approvals ----------------------------------------------------------------------------------

@BOTH_MODES
def test_approval_card_edit_form_and_trusted_clicks(page, chat_page, scripted_agent):
    open_chat(chat_page)
    ChatPage(page).send("approve")
    card = page.locator(".pyclient-tool[data-tool='send_mail']")
    expect(card).to_have_attribute("data-status", "awaiting_approval", timeout=TIMEOUT)
    expect(card.locator(".pyclient-tool-description")).to_have_text("Send an email to a colleague.")
    expect(card.locator(".pyclient-approval-question")).to_have_text("Allow send_mail to run with the arguments above?")
    expect(card.locator(".pyclient-tool-args")).to_contain_text("alice@example.org")
    # A script's click is not the user's approval.
    with page.expect_console_message(lambda m: "ignored an untrusted click" in m.text):
        card.locator(".pyclient-approve").dispatch_event("click")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    assert page.evaluate("window.mailed") is None

    card.locator(".pyclient-edit-toggle").click()
    form = card.locator(".pyclient-edit")
    expect(form).to_be_visible()
    expect(card.locator(".pyclient-edit-toggle")).to_have_attribute("aria-expanded", "true")
    expect(form.locator("input[name='to']")).to_be_focused()
    to = form.locator("input[name='to']")
    expect(to).to_have_value("alice@example.org")
    expect(form.locator("input[name='count']")).to_have_attribute("type", "number")
    expect(form.locator("input[name='urgent']")).to_have_attribute("type", "checkbox")
    expect(form.locator("select[name='tone']")).to_have_value("0")
    # An edit the tool refuses: the message shows in the card, the call keeps waiting.
    to.fill("nobody")
    card.locator(".pyclient-approve").click()
    expect(card.locator(".pyclient-approval-error")).to_contain_text("to", timeout=TIMEOUT)
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    # An edit that does not read as its type: same.
    form.locator("input[name='count']").fill("1.5")
    card.locator(".pyclient-approve").click()
    expect(card.locator(".pyclient-approval-error")).to_contain_text("not a whole number")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    to.fill("bob@example.org")
    form.locator("input[name='count']").fill("3")
    form.locator("input[name='urgent']").check()
    form.locator("select[name='tone']").select_option(label="loud")
    card.locator(".pyclient-approve").click()
    expect(card).to_have_attribute("data-status", "completed", timeout=TIMEOUT)
    assert json.loads(page.evaluate("window.mailed")) == {"to": "bob@example.org", "count": 3, "urgent": True,
                                                          "tone": "loud"}
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_contain_text("sent 3 to bob@example.org")
    expect(card.locator(".pyclient-approval")).to_have_count(0)  # the bar went with the question
    # The model is told the user edited the arguments (the follow-up carries the edit).
    assert "sent 3 to bob@example.org" in scripted_agent.tool_messages[-1].content


@MAIN_ONLY
def test_thirty_thousand_deep_arguments_shown_in_an_approval_card_with_no_page_error(page, chat_page,
                                                                                    scripted_agent):
    open_chat(chat_page)
    ChatPage(page).send("deep approve")
    card = page.locator(".pyclient-tool[data-tool='send_mail']")
    expect(card).to_have_attribute("data-status", "awaiting_approval", timeout=TIMEOUT)
    # The arguments as the model wrote them, and the bar says they cannot be read.
    assert card.locator(".pyclient-tool-args").evaluate("e => e.textContent") == DEEP_MAIL
    expect(card.locator(".pyclient-approval-question")).to_have_text("Allow send_mail to run with the arguments above?")
    expect(card.locator(".pyclient-approval-unread")).to_have_text(re.compile(
        r"^These arguments cannot be read: JSON nested deeper than 40 levels .* Approved as they are, the call "
        r"fails; Edit replaces them\.$"))
    card.locator(".pyclient-approve").click()
    # Refused as any call with such arguments: the handler never ran, the model is told why.
    expect(card).to_have_attribute("data-status", "failed", timeout=TIMEOUT)
    expect(card.locator(".pyclient-tool-result")).to_contain_text("nested deeper than 40 levels")
    ChatPage(page).wait_idle()
    assert page.evaluate("window.mailed") is None
    assert "nested deeper than 40 levels" in scripted_agent.tool_messages[-1].content
    ChatPage(page).send("Say hello")  # the page goes on
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply: Say hello", timeout=TIMEOUT)


# -- renderers ------------------------------------------------------------------------------------

@BOTH_MODES
def test_renderer_sees_states_in_order_with_partial_input(page, chat_page, scripted_agent):
    # The arguments stop halfway until the renderer has drawn them: a busy page would otherwise
    # take the four deltas in one frame and draw only the whole title.
    halfway = threading.Event()
    scripted_agent.on(exactly("task halfway")).call(
        "create_task", {"title": "Water the plants", "due": "friday"}, chunks=4, halfway=halfway).then_say(done)
    open_chat(chat_page)
    view = page.locator(".pyclient-tool[data-tool='create_task'] .task-view")
    try:
        ChatPage(page).send("task halfway")
        expect(view).to_have_text("Task: Water the pla (input-streaming)", timeout=TIMEOUT)   # half the JSON
    finally:
        halfway.set()
    expect(view).to_have_text("Task: Water the plants (output-available)", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    parts = json.loads(page.evaluate("window.t.parts()"))
    states = deduped([p["state"] for p in parts])
    assert states == ["input-streaming", "input-available", "output-available"], parts
    streaming = [p for p in parts if p["state"] == "input-streaming"]
    # Partial input while the arguments streamed: a title that was still growing.
    assert any(p["title"] and p["title"] != "Water the plants" for p in streaming), parts
    # Called when the part changed, not again for the same part (run status changes do not count).
    keys = [(p["state"], json.dumps(p["input"], sort_keys=True), p["status"]) for p in parts]
    assert len(keys) == len(deduped(keys)), parts
    # The renderer's view replaces the default arguments and result.
    expect(page.locator(".pyclient-tool[data-tool='create_task'] .pyclient-tool-args-box")).to_be_hidden()


@pytest.mark.callback_errors_expected
@MAIN_ONLY
def test_raising_renderer_shows_a_fallback_and_the_conversation_goes_on(page, chat_page, guard):
    open_chat(chat_page)
    ChatPage(page).send('call boom {"x": "1"}')
    fallback = page.locator(".pyclient-tool[data-tool='boom'] .pyclient-render-error")
    expect(fallback).to_contain_text("RuntimeError: the renderer broke <script>", timeout=TIMEOUT)
    assert page.locator(".pyclient-tool script").count() == 0
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("done: boom 1")
    ChatPage(page).send("Say hello")
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply: Say hello", timeout=TIMEOUT)


@BOTH_MODES
def test_render_only_tool_answered_by_its_renderer(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send('call pick_color {"choices": ["blue", "red"]}')
    card = page.locator(".pyclient-tool[data-tool='pick_color']").last
    expect(card).to_have_attribute("data-status", "awaiting_input", timeout=TIMEOUT)
    expect(page.locator(".pyclient-run-status")).to_have_text("Waiting for you")
    card.locator(".pick-invalid").click()  # an output that does not match the output schema
    expect(card.locator(".picker-error")).not_to_be_empty()
    expect(card).to_have_attribute("data-status", "awaiting_input")
    card.locator(".pick-blue").click()
    expect(card).to_have_attribute("data-status", "completed", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_contain_text('"color":"blue"')

    ChatPage(page).send('call pick_color {"choices": ["green"]}')
    card = page.locator(".pyclient-tool[data-tool='pick_color']").last
    expect(card).to_have_attribute("data-status", "awaiting_input", timeout=TIMEOUT)
    card.locator(".pick-fail").click()
    expect(card).to_have_attribute("data-status", "failed", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("done: no colour for me")


@MAIN_ONLY
def test_backend_tool_calls_render_too(page, chat_page):
    open_chat(chat_page)
    ChatPage(page).send("backend")
    card = page.locator(".pyclient-tool[data-tool='web_search']")
    expect(card.locator(".pyclient-tool-body")).to_have_text("searching pyclient: 3 results", timeout=TIMEOUT)
    expect(card).to_have_attribute("data-state", "output-available")
    ChatPage(page).wait_idle()
    expect(page.locator(".pyclient-assistant").last).to_have_text("Found 3 results.")


@MAIN_ONLY
def test_thirty_thousand_deep_arguments_shown_in_a_card_with_no_page_error(page, chat_page, scripted_agent):
    open_chat(chat_page)
    ChatPage(page).send("deep arguments")
    card = page.locator(".pyclient-tool[data-tool='echo']")
    expect(card).to_have_attribute("data-status", "failed", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    # The card shows the arguments as they streamed (not formatted: they cannot be read) and
    # why the call was refused; the model got the same reason.
    assert card.locator(".pyclient-tool-args").evaluate("e => e.textContent") == DEEP_ARGUMENTS
    expect(card.locator(".pyclient-tool-result")).to_contain_text(
        "The arguments of tool 'echo' were not read (60010 characters): JSON nested deeper than 40 levels")
    assert "nested deeper than 40 levels" in scripted_agent.tool_messages[-1].content
    expect(page.locator(".pyclient-assistant").last).to_contain_text("done: The arguments of tool 'echo' were not read")
    ChatPage(page).send("Say hello")  # the page goes on
    expect(page.locator(".pyclient-assistant").last).to_have_text("reply: Say hello", timeout=TIMEOUT)


# -- volume ---------------------------------------------------------------------------------------

@BOTH_MODES
def test_a_thousand_parallel_calls_render_and_the_page_stays_responsive(page, chat_page, record_property):
    open_chat(chat_page)
    # The number of cards at each animation frame: they are made over frames, not in one task.
    page.evaluate("""() => { window.cardCounts = [];
        const count = () => { const n = document.querySelectorAll('.pyclient-tool').length;
            window.cardCounts.push(n); if (n < 1000) requestAnimationFrame(count); };
        requestAnimationFrame(count); }""")
    started = time.perf_counter()
    ChatPage(page).send("many 1000")
    worst = 0.0
    all_cards = None
    while True:
        before = time.perf_counter()
        count, finished = page.evaluate("""[document.querySelectorAll('.pyclient-tool').length,
            document.querySelectorAll('.pyclient-tool[data-status=completed]').length === 1000 &&
            document.querySelector('.pyclient-run-status').dataset.status === 'idle']""")
        worst = max(worst, time.perf_counter() - before)
        if count >= 1000 and all_cards is None:
            all_cards = time.perf_counter() - started
        if finished:
            break
        assert time.perf_counter() - started < 300, f"{count} cards after 300 s: the page stopped drawing them"
        time.sleep(0.05)
    done = time.perf_counter() - started
    record_property("thousand_calls_cards_s", all_cards)
    record_property("thousand_calls_done_s", done)
    print(f"1,000 parallel calls: all cards in {all_cards:.2f} s, all done in {done:.2f} s, "
          f"slowest page round trip {worst:.2f} s")
    ids = page.locator(".pyclient-tool").evaluate_all("cards => cards.map(c => c.dataset.toolCallId)")
    assert ids == [f"tick-{i}" for i in range(1000)]  # in call order, each once
    # The figures are bench/chat.py's (1,000 cards in about 4 s, the page's longest task a
    # fraction of a second); a test only checks that the page went on answering (a bound no
    # loaded machine comes near: 1.1 s was seen with the cards taking 56 s) and, by the frame
    # counts below, that the cards were made over frames, not in one task.
    assert worst < 10.0  # the page answered while the cards rendered
    expect(page.locator(".pyclient-assistant").last).to_have_text("done: 1000 results")
    partial = {n for n in page.evaluate("window.cardCounts") if 0 < n < 1000}
    assert len(partial) >= 2, partial  # frames showed some of the cards, then more: made over frames
    # The answer that followed the calls comes after all their cards, though it came before the last were made.
    items = page.locator(".pyclient-messages > li").evaluate_all(
        "items => items.map(li => li.dataset.toolCallId || li.className)")
    assert [i for i, item in enumerate(items) if "pyclient-assistant" in item] == [len(items) - 1]
    assert items.index("tick-999") == len(items) - 2


@pytest.mark.parametrize("size", [1_000_000])
@BOTH_MODES
def test_a_megabyte_argument_in_ten_thousand_deltas(page, chat_page, size):
    open_chat(chat_page)
    started = time.perf_counter()
    ChatPage(page).send(f"big {size} 10000")
    expect(page.locator(".pyclient-tool[data-tool='echo']")).to_have_attribute("data-status", "completed",
                                                                               timeout=60_000)
    ChatPage(page).wait_idle()
    elapsed = time.perf_counter() - started
    print(f"1 MB argument in 10,000 deltas: shown and answered in {elapsed:.2f} s")
    # Its first 100,000 characters (`pyclient.browser._widgets._preview.PREVIEW_CHARS`), and a button that brings the rest.
    args = page.locator(".pyclient-tool-args")
    assert args.evaluate("e => e.textContent.length") == 100_000
    more = page.locator(".pyclient-tool .pyclient-show-all[data-part=args]")
    expect(more).to_have_text(re.compile(r"^Show all [\d,]+ characters$"))
    total = int(more.text_content().split()[2].replace(",", ""))
    assert size < total < size + 100  # the whole argument's JSON
    page.locator(".pyclient-tool .pyclient-tool-args-box > summary").click()  # closed once the call ran
    more.click()
    expect(more).to_be_hidden()
    shown = args.evaluate("e => e.textContent.match(/x{1000,}/)[0].length")
    assert shown == size
    assert elapsed < 30
