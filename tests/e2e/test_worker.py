"""pyclient in a PyScript worker (`<script type="py" worker>`), on a cross-origin isolated page.

The page (web/tests/worker.html, its Python web/tests/worker.py) is served by the dev server with
COOP/COEP, which PyScript needs for `pyscript.document` in a worker. In the worker `js` is the
worker's own scope: it has no `MutationObserver`, and its address is the worker script's. The
test checks what pyclient takes from the page instead (`pyclient.browser._page._page_window`): importing
pyclient works, a thread binds to a page element, and an agent at the relative URL `/agent`
completes a tool round trip whose handler changes the page's heading (and a handler that uses
`js.localStorage`, the main thread's way, gets an error result that says what to write), while the page's own
button answers at once, within 100 ms all along the boot (and not when the same page runs its
Python on the main thread). The chat in a worker is tested by tests/e2e/test_chat_ui.py (both
modes) and the demo's tests (the demo runs in a worker).
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from devserver.background import ServerThread
from pyclient.testing import PyclientPage


@pytest.fixture(scope="module")
def isolated_server(runtime) -> Iterator[str]:
    """The dev server (pages, runtime, the demo agent) with COOP/COEP headers."""
    from devserver.app import create_app

    with ServerThread(create_app(runtime=runtime, coi=True)) as server:
        yield server.url


def _lateness_until_ready(context, url: str, *, main_thread: bool = False) -> list[float]:
    """How late (ms) each of the page's own clicks ran, every 20 ms from its first moment until
    Python is ready (web/tests/worker.html's ticker: the boot, then the tool round trip)."""
    guard = PyclientPage(context.new_page())  # fails on requests that leave 127.0.0.1, page errors
    page = guard.page
    if main_thread:  # the same page with its Python on the main thread
        def without_worker(route):
            body = route.fetch().text().replace('type="py" worker', 'type="py"')
            route.fulfill(body=body, headers={"content-type": "text/html"})

        page.route("**/tests/worker.html", without_worker)
    page.goto(url)
    page.wait_for_selector("html[data-pyclient='ready']", timeout=60_000)
    late = page.evaluate("window.__late")
    if not main_thread:
        _check_the_round_trip(page)
    guard.check()
    page.close()
    return late


def _check_the_round_trip(page) -> None:
    """What web/tests/worker.py did from its worker: imported pyclient, bound a thread to #chat,
    completed a tool round trip at the relative URL `/agent` that changed the page's heading."""
    assert page.evaluate("crossOriginIsolated") is True
    root = page.locator("html")
    assert root.get_attribute("data-error") is None, root.get_attribute("data-error")
    bound = json.loads(root.get_attribute("data-bound"))
    assert bound["in_worker"] is True and bound["element"] == "chat"
    assert page.locator("#chat").get_attribute("data-pyclient-thread")  # bound from the worker
    trip = json.loads(root.get_attribute("data-round-trip"))
    assert trip["status"] == "idle", trip
    assert trip["heading"] == "Welcome" and page.locator("h1").text_content() == "Welcome"
    assert "the heading is now Welcome" in trip["answer"]
    # A handler that reaches for `js.localStorage` (the main thread's way) fails with what to write.
    [hint] = json.loads(root.get_attribute("data-js-hint"))
    assert hint.startswith("localStorage: this page runs its Python in a PyScript worker") and \
        "Write `from pyscript import window` and use `window.localStorage`" in hint, hint
    clicks = page.evaluate("window.__clicks")  # the page's own ticker clicked until ready
    page.locator("#ping").click()
    assert page.evaluate("window.__clicks") == clicks + 1


def test_a_worker_page_completes_a_round_trip_and_its_button_never_waits_for_python(
        browser, browser_context_args, isolated_server, watch_callback_errors):
    context = browser.new_context(**{**browser_context_args, "base_url": isolated_server})
    watch_callback_errors(context)
    try:
        worker = _lateness_until_ready(context, "/tests/worker.html")
        main = _lateness_until_ready(context, "/tests/worker.html", main_thread=True)
    finally:
        context.close()
    assert len(worker) >= 50, len(worker)     # clicked all along the boot and the round trip
    # Measured side by side in one run, so a loaded machine slows both pages alike: with its
    # Python in a worker a click never waits for Python (two may wait for the page's own start
    # of the worker), while the same page with its Python on the main thread makes clicks wait
    # for Pyodide's start and the imports (seconds: what this test exists to catch). The
    # absolute figures (each click within ~100 ms in a worker) are bench/blocking.py's.
    assert sorted(worker)[-3] * 5 < max(main) and max(worker) * 2 < max(main), (sorted(worker)[-5:], sorted(main)[-5:])
