"""A renderer crash is named, with Chromium's termination status, wherever a test stood.

Playwright only says "Target crashed", on the call the crash broke. The guard
(`pyclient.testing.PyclientPage`) fails the test that owns the page, saying which page died,
and the suite records Chromium's own words for it (`tests/e2e/conftest.py`, `CRASHES`: the
status and the signal, the test, the machine's memory). `chrome://crash` makes a renderer
crash on purpose.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Error

from pyclient.testing import PyclientPage
from tests.e2e.pages import CRASHES
from tests.helpers import wait_for


def test_a_crashed_renderer_fails_its_guard_and_is_recorded_with_its_signal(browser, browser_context_args):
    context = browser.new_context(**browser_context_args)
    try:
        guard = PyclientPage(context.new_page())
        before = len(CRASHES)
        with pytest.raises(Error):
            guard.page.goto("chrome://crash")
        # Playwright delivers events while it talks to the browser: each poll asks it something.
        wait_for(lambda: context.cookies() is not None and len(CRASHES) > before, 10, "Chromium's report of the crash")
        crash = CRASHES.pop()   # made on purpose: not one for the session's list
        # SIGSEGV: the exit status is 11, or 139 (128 + 11) where a core was dumped
        assert crash["status"] == "crashed" and crash["errorCode"] in (11, 139), crash
        assert "::test_a_crashed_renderer_fails_its_guard_and_is_recorded_with_its_signal" in crash["test"]
        assert crash["available_mb"] > 0 and crash["chromium_mb"] > 0
        with pytest.raises(AssertionError, match="renderer crashed"):
            guard.check()
    finally:
        context.close()


@pytest.mark.parametrize("mode", ["main", "worker"])
def test_python_on_the_main_thread_runs_without_jspi_and_a_worker_keeps_it(pyclient_page, mode):
    """The workaround for Chromium's crash (pyclient.js): on the main thread Pyodide finds no
    `WebAssembly.Suspending` and runs without stack switching; in a worker it keeps it."""
    page = pyclient_page.open("/tests/trust.html", ready="document.documentElement.dataset.pyclient === 'ready'",
                              worker=mode == "worker")
    assert page.evaluate("document.documentElement.dataset.pyclientMode") == ("worker" if mode == "worker" else "main-thread")
    assert page.evaluate("typeof WebAssembly.Suspending") == ("function" if mode == "worker" else "undefined")
