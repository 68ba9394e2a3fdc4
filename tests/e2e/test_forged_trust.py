"""A page script that runs after pyclient's bootstrap cannot click for the person, in either mode.

The chat acts on a click only when the browser marked it trusted (`isTrusted`). On the main
thread Python reads the event itself; in a worker the page's renderer (assets/renderer.js)
reads it and forwards it. These tests try what a hostile script on the page can do there:
patch `MessagePort.prototype.postMessage` so that every forwarded event says trusted, listen to
the worker's messages from its start for the port its events travel on, put its own `Worker`
or renderer in place, and patch `Node.prototype.parentNode` so that the person's own click on
some text lands on Approve. None of it approves a call or deletes a saved thread.

The page is web/tests/trust.html: pyclient.js, then the hostile script (`window.spy` says what it
got), then PyScript; a `ThreadList` beside its `Chat`, one tool `pay(amount)` that needs approval.
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, ChatPage, module_page, said, turn

pytestmark = BOTH_MODES

UNTRUSTED = "pyclient: ignored an untrusted click"

shared_page = module_page("/tests/trust.html", site="plugin")

# Every forwarded event says it is trusted.
PATCH_POST_MESSAGE = """() => {
  const original = MessagePort.prototype.postMessage;
  window.restore = () => { MessagePort.prototype.postMessage = original; };
  MessagePort.prototype.postMessage = function (data, ...rest) {
    if (data && typeof data === "object" && "isTrusted" in data) data.isTrusted = true;
    return original.call(this, data, ...rest);
  };
}"""

# The person's click on the chat's title (text, no command) is on a node nobody knows, whose
# parent is Approve.
PATCH_PARENT_NODE = """() => {
  const descriptor = Object.getOwnPropertyDescriptor(Node.prototype, "parentNode");
  const weakGet = WeakMap.prototype.get;
  window.restore = () => { Object.defineProperty(Node.prototype, "parentNode", descriptor); WeakMap.prototype.get = weakGet; };
  const decoy = document.querySelector("#chat .pyclient-title");
  WeakMap.prototype.get = function (key) { return key === decoy ? undefined : weakGet.call(this, key); };
  Object.defineProperty(Node.prototype, "parentNode", {
    configurable: true,
    get() { return this === decoy ? document.querySelector("#chat .pyclient-approve") : descriptor.get.call(this); },
  });
}"""


@pytest.fixture
def page(shared_page, serving):
    """The shared page with a new store, list and chat; `/agent` this test's `scripted_agent`."""
    serving.on("pay").call("pay", amount=1000, call_id="c1").then_say(lambda results: f"done: {results[0].content}")
    with turn(shared_page) as guard:
        page = guard.page
        generation = page.evaluate("window.t.reset()")
        page.wait_for_selector(f"#chat[data-generation='{generation}']", state="attached")
        yield page
        page.evaluate("window.restore?.(); delete window.restore")


def ask_to_pay(page):
    ChatPage(page).send("pay")
    card = page.locator(".pyclient-tool[data-tool='pay']")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    return card


def approve_for_real(page, card) -> None:
    """The person's own click: the call runs once, with what the model asked."""
    card.locator(".pyclient-approve").click()
    expect(card).to_have_attribute("data-status", "completed")
    assert page.evaluate("window.paid") == 1000
    ChatPage(page).wait_idle()


def test_a_script_that_patches_postMessage_cannot_approve_a_call(page):
    card = ask_to_pay(page)
    page.evaluate(PATCH_POST_MESSAGE)
    with said(page, UNTRUSTED):
        card.locator(".pyclient-approve").evaluate("button => button.click()")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    assert page.evaluate("window.paid") is None
    approve_for_real(page, card)


def test_a_script_that_patches_postMessage_cannot_delete_a_saved_thread(page):
    card = ask_to_pay(page)
    approve_for_real(page, card)
    item = page.locator(".pyclient-thread").first
    expect(item.locator(".pyclient-thread-title")).to_have_text("pay")
    page.evaluate(PATCH_POST_MESSAGE)
    with said(page, f"{UNTRUSTED} on the thread list", count=2):
        item.locator(".pyclient-thread-delete").evaluate("button => button.click()")
        item.locator(".pyclient-thread-confirm-delete").evaluate("button => button.click()")
    assert json.loads(page.evaluate("window.t.saved()")) == ["pay"]
    expect(page.locator(".pyclient-thread")).to_have_count(1)


def test_a_script_that_listened_from_the_start_holds_no_port_and_replaced_nothing(page):
    card = ask_to_pay(page)
    spy = page.evaluate("({heard: spy.heard, ports: spy.ports.length, worker: spy.worker, renderer: spy.renderer})")
    # It could not put its own Worker or renderer in place, and heard none of pyclient's messages
    # (the worker's hello carries the port its events travel on; its batches name its token).
    assert spy == {"heard": 0, "ports": 0, "worker": False, "renderer": False}
    # Had it held a port, this is what it would post: a trusted click on Approve.
    forged = page.evaluate("""() => {
      const root = document.querySelector("#chat .pyclient-chat"), approve = document.querySelector("#chat .pyclient-approve");
      for (const token of spy.tokens) for (const port of spy.ports) port.postMessage({
        id: pyclientRenderer.adopt(token, root), type: "click", isTrusted: true, target: pyclientRenderer.adopt(token, approve),
        key: null, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, defaultPrevented: false });
      return spy.tokens.length * spy.ports.length;
    }""")
    with said(page, UNTRUSTED):  # after the forged click, if any: the same port, in order
        card.locator(".pyclient-approve").dispatch_event("click")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    assert (forged, page.evaluate("window.paid")) == (0, None)
    approve_for_real(page, card)


def test_the_persons_click_on_text_cannot_be_turned_into_an_approval(page):
    card = ask_to_pay(page)
    page.evaluate(PATCH_PARENT_NODE)
    page.locator("#chat .pyclient-title").click()   # trusted: the person clicked the title
    with said(page, UNTRUSTED):  # handled after the title's click
        card.locator(".pyclient-approve").dispatch_event("click")
    expect(card).to_have_attribute("data-status", "awaiting_approval")
    assert page.evaluate("window.paid") is None
    page.evaluate("window.restore()")
    approve_for_real(page, card)
