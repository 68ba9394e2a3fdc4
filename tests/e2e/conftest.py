"""Playwright on Debian's Chromium, with every test guarded against leaving 127.0.0.1.

The guard is pyclient's own (`pyclient.testing.PyclientPage`, what page authors get from the
`pyclient_page` fixture): each test fails when the page requests anything outside 127.0.0.1
(the request is also aborted, so nothing leaks) or when the page has an uncaught error; and
tests/conftest.py's `callback_errors` fails it when a listener, a renderer or a save raised in
a page of its browser context (pages log those and go on). The pages here are served by the
dev server (`live_server`), not by the plugin's `pyclient_site`, because they also talk to its
embedded agent and test routes.

A suite runs in both modes with `pytestmark = BOTH_MODES`: its tests then run once with the
page's Python on the main thread and once in a PyScript worker (`mode`), and `open_page`,
`boot_once` and `in_mode` open each page accordingly (`?pyclient-worker=1`, which both sites
answer with the page in worker mode and cross-origin isolated).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from playwright.sync_api import Error, expect

from devserver.chromium import launch_args
from pyclient.testing import PyclientPage
from pyclient.testing._worker_pages import worker_path

BOOT_TIMEOUT_MS = 60_000

# Playwright's `expect` waits 5 s by default: a worker page's answer to an event crosses two
# threads, which on a loaded 2-core machine (two test processes, each with its Chromium) was
# seen to take longer. A passing assertion returns as soon as it holds.
expect.set_options(timeout=15_000)

BOTH_MODES = pytest.mark.parametrize("mode", ["main", "worker"], indirect=True, scope="module")
"""Run a module's tests with the page's Python on the main thread and in a worker (`mode`)."""


@pytest.fixture(scope="module")
def mode(request) -> str:
    """Where the page's Python runs: "main" (the main thread) unless the module runs `BOTH_MODES`."""
    return getattr(request, "param", "main")


def in_mode(path: str, mode: str) -> str:
    """`path` as it opens the page in `mode` ("worker": with the query that asks for worker mode)."""
    return worker_path(path) if mode == "worker" else path


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, live_server):
    return {**browser_context_args, "base_url": live_server}


@pytest.fixture
def guard(context) -> Iterator[PyclientPage]:
    """The test's page, guarded: `guard.allow_error(fragment)` accepts an error provoked on purpose."""
    guarded = PyclientPage(context.new_page())
    yield guarded
    guarded.check()


@pytest.fixture
def page(guard):
    return guard.page


# The repository's test pages set `data-pyclient="ready"` on <html> once their Python is set up.
READY = "document.documentElement.dataset.pyclient === 'ready'"


def wait_ready(page, timeout: int = BOOT_TIMEOUT_MS) -> None:
    """Wait until a pyclient page's Python has set `data-pyclient="ready"` on <html>."""
    page.wait_for_function(READY, timeout=timeout, polling=25)


@pytest.fixture
def open_page(page, mode):
    """Navigate to a path on the dev server (in the module's `mode`) and wait until its Python is ready."""

    def open_(path: str = "/", timeout: int = BOOT_TIMEOUT_MS):
        page.goto(in_mode(path, mode))
        wait_ready(page, timeout)
        return page

    return open_


def boot_once(context, watch_callback_errors, path: str, mode: str = "main") -> PyclientPage:
    """A guarded page of `context` opened at `path` (in `mode`) and ready: for a module of tests
    that share one booted page (a boot costs seconds; each test then starts from the page's own reset)."""
    watch_callback_errors(context)
    guard = PyclientPage(context.new_page())
    guard.open(path, ready=READY, worker=mode == "worker")
    return guard


class SharedPage:
    """A page booted once for a module in a context of its own, booted again when its renderer
    crashed: Chromium's renderer was seen to crash once in many CI runs ("Target crashed"), and
    a crashed shared page would otherwise error every later test of the module. The crashed
    test itself is run again (`--only-rerun "Target crashed"` in pyproject.toml)."""

    def __init__(self, browser, context_args: dict, watch_callback_errors, path: str, mode: str) -> None:
        self._open = lambda: browser.new_context(**context_args)
        self._watch = watch_callback_errors
        self._path, self._mode = path, mode
        self.context = self._open()
        self.guard = boot_once(self.context, watch_callback_errors, path, mode)
        self.reboots = 0

    def ready(self) -> SharedPage:
        """This, with a live page: booted again in a new context if the page crashed or closed."""
        try:
            self.guard.page.evaluate("1")
            return self
        except Error:  # "Target crashed", or the page was closed
            pass
        self.context.close()
        self.context = self._open()
        self.guard = boot_once(self.context, self._watch, self._path, self._mode)
        self.reboots += 1
        return self

    def close(self) -> None:
        self.context.close()


@contextmanager
def checked(guard: PyclientPage) -> Iterator[PyclientPage]:
    """One test's turn on a shared page: the guard is checked at its end and emptied for the next."""
    try:
        yield guard
        guard.check()
    finally:
        guard.clear()


@pytest.fixture(scope="module")
def shared_context(browser, browser_context_args):
    """A browser context on the dev server that lives for the module (pages booted once)."""
    context = browser.new_context(**browser_context_args)
    yield context
    context.close()
