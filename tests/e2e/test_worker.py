"""pyclient in a PyScript worker (`<script type="py" worker>`), on a cross-origin isolated page.

The page (web/tests/worker.html, its Python web/tests/worker.py) is served by the dev server with
COOP/COEP, which PyScript needs for `pyscript.document` in a worker. In the worker `js` is the
worker's own scope: it has no `MutationObserver`, and its address is the worker script's. The
test checks what pyclient takes from the page instead (`pyclient.browser._window`): importing
pyclient works, a thread binds to a page element, and an agent at the relative URL `/agent`
completes a tool round trip whose handler changes the page's heading, while the page's own
button answers at once. The rest of worker mode (the chat's events and rendering across
threads) is not here yet.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from devserver.background import ServerThread
from pyclient.testing import PyclientPage
from tests.e2e.conftest import READY


@pytest.fixture(scope="module")
def isolated_server(runtime) -> Iterator[str]:
    """The dev server (pages, runtime, the demo agent) with COOP/COEP headers."""
    from devserver.app import create_app

    with ServerThread(create_app(runtime=runtime, coi=True)) as server:
        yield server.url


def test_a_worker_page_imports_binds_and_completes_a_round_trip(browser, browser_context_args, isolated_server,
                                                               watch_callback_errors):
    context = browser.new_context(**{**browser_context_args, "base_url": isolated_server})
    watch_callback_errors(context)
    guard = PyclientPage(context.new_page())
    try:
        page = guard.open("/tests/worker.html", ready=READY)
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
        page.locator("#ping").click()
        assert page.evaluate("window.__clicks") == 1
        guard.check()
    finally:
        context.close()
