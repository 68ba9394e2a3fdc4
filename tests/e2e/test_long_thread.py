"""A thread restored with thousands of messages, in Chromium: the chat makes nodes for its last
screens only, and earlier ones as the person scrolls up, without moving what they read.

The page is web/tests/long.html (`?n=` messages in a `MemoryStore`, restored by the chat;
web/tests/long.py), driven with pyclient's own plugin (`pyclient_page`, `scripted_agent` on
`/agent`). The windowed thread runs with the page's Python on the main thread and in a worker
(`BOTH_MODES`: the person's scrolling crosses to the worker); `windowed=False` is the same code
making every node at once, `MAIN_ONLY`.
"""

from __future__ import annotations

from playwright.sync_api import expect

from pyclient.browser._chat._history_window import BATCH, FIRST
from tests.e2e.pages import BOTH_MODES, MAIN_ONLY, READY

COUNT = 1_500  # thousands: 25 windows of FIRST; a scroll back to the top of 3,000 took most of a minute a mode
TIMEOUT = 30_000
ITEMS = "#chat .pyclient-messages > li"

# The list's items (bubbles and cards), and where one of them is in the list's box.
COUNT_ITEMS = f"document.querySelectorAll({ITEMS!r}).length"
TOP_OF = """(text) => {
  const list = document.querySelector('#chat .pyclient-messages');
  const item = [...list.children].find((li) => li.textContent === text);
  return item ? item.getBoundingClientRect().top - list.getBoundingClientRect().top : null;
}"""


@BOTH_MODES
def test_a_long_restored_thread_shows_its_end_and_makes_earlier_items_as_it_scrolls_up(
        pyclient_page, scripted_agent, mode):
    scripted_agent.on("one more").say("A streamed reply.")
    page = pyclient_page.open(f"/tests/long.html?n={COUNT}", ready=READY, worker=mode == "worker")
    last = page.locator(ITEMS).last
    expect(last).to_have_text("This is the last message.", timeout=TIMEOUT)
    expect(last).to_be_in_viewport()
    # Only the last screens are made: at most one item per message of the window (and its bars).
    made = page.evaluate(COUNT_ITEMS)
    assert 10 < made <= FIRST, made
    assert page.locator(ITEMS).filter(has_text="question 0").count() == 0
    # Every bubble made has its action bar (the last answer can be regenerated).
    expect(last.locator(".pyclient-actions .pyclient-regenerate")).to_have_count(1)

    # Scrolled to the top of what is made: a batch of earlier items comes in above, and the item
    # that was at the top stays where it was on the screen.
    # Where the item is, as each batch lands (a MutationObserver runs before the frame is drawn).
    top_text = page.locator(ITEMS).first.text_content()
    page.evaluate(f"""text => {{ const list = document.querySelector('#chat .pyclient-messages');
        window.__tops = [];
        window.__batches = new MutationObserver(() => window.__tops.push(({TOP_OF})(text)));
        window.__batches.observe(list, {{childList: true}}); list.scrollTop = 0; }}""", top_text)
    before = page.evaluate(TOP_OF, top_text)
    page.wait_for_function(f"{COUNT_ITEMS} > {made}", timeout=TIMEOUT, polling=25)
    # The window widens while the list is within a screen of its top: once the batches have
    # pushed the top more than a screen away, none comes (the barrier for "none moved it").
    page.wait_for_function("""() => { const list = document.querySelector('#chat .pyclient-messages');
                                      return list.scrollTop > list.clientHeight; }""", timeout=TIMEOUT, polling=25)
    after = page.evaluate(TOP_OF, top_text)
    tops = page.evaluate("window.__batches.disconnect(), window.__tops")
    assert tops and all(abs(top - before) <= 2 for top in tops), (before, tops)
    assert abs(after - before) <= 2, (before, after)
    assert page.evaluate("document.querySelector('#chat .pyclient-messages').scrollTop") > 0
    expect(page.locator(".pyclient-jump")).to_be_visible()

    # All the way up (a batch a frame): the first message comes in, every item in order once.
    page.wait_for_function("""() => {
        const list = document.querySelector('#chat .pyclient-messages');
        list.scrollTop = 0;
        return list.firstElementChild.textContent.startsWith('question 0');
    }""", timeout=120_000, polling="raf")
    texts = page.evaluate(f"[...document.querySelectorAll({ITEMS!r})].map((li) => li.textContent.slice(0, 14))")
    questions = [text for text in texts if text.startswith("question ")]
    assert questions == [f"question {i}" for i in range(len(questions))]
    assert len(questions) > COUNT // 3
    cards = page.locator(ITEMS).filter(has=page.locator(".pyclient-tool-result"))
    expect(cards.first).to_contain_text("found 9")
    assert page.locator(ITEMS).first.locator(".pyclient-actions .pyclient-edit").count() == 1
    assert BATCH < COUNT

    # Back to the end; a new message streams there and is followed.
    page.locator(".pyclient-jump").click()
    expect(last).to_be_in_viewport()
    page.locator(".pyclient-form input").fill("one more")
    page.locator(".pyclient-send").click()
    expect(page.locator(ITEMS).last).to_have_text("A streamed reply.", timeout=TIMEOUT)
    expect(page.locator(ITEMS).last).to_be_in_viewport()
    expect(page.locator(".pyclient-run-status")).to_have_attribute("data-status", "idle")
    request = scripted_agent.requests[-1]
    assert len(request.messages) == COUNT + 1   # the whole history went, not the window
    assert request.messages[0].content == "question 0"


@MAIN_ONLY
def test_windowed_false_makes_every_item_at_once(pyclient_page, mode):
    page = pyclient_page.open("/tests/long.html?n=400&windowed=0", ready=READY, worker=mode == "worker")
    expect(page.locator(ITEMS).last).to_have_text("This is the last message.", timeout=TIMEOUT)
    expect(page.locator(ITEMS).first).to_have_text("question 0")
    assert page.evaluate(COUNT_ITEMS) > FIRST * 3
