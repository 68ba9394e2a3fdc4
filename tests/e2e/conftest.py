"""Playwright on Debian's Chromium, with every test guarded against leaving 127.0.0.1.

Each test fails when the page requests anything outside 127.0.0.1 (the request is also
aborted, so nothing leaks) or when the page has an uncaught error.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from devserver.chromium import launch_args

LOCAL_HOSTS = {"127.0.0.1"}
BOOT_TIMEOUT_MS = 60_000


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, live_server):
    return {**browser_context_args, "base_url": live_server}


# Console errors that mean something went uncaught or a page's code is broken (other console
# errors, such as a handler's logged traceback, are a tool failing on purpose and end as a
# tool result, not a crash).
UNCAUGHT = ("Uncaught", "PythonError", "Task exception was never retrieved", "was never awaited",
            "a thread listener raised")


class PageGuard:
    """Collects what must fail a test: requests leaving 127.0.0.1, uncaught errors."""

    def __init__(self) -> None:
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.console_errors: list[str] = []
        self.allowed: list[str] = []

    def route(self, route) -> None:
        url = route.request.url
        if urlsplit(url).hostname not in LOCAL_HOSTS:
            self.outside.append(url)
            route.abort()
        else:
            route.continue_()

    def allow_error(self, fragment: str) -> None:
        """Let a test that provokes an uncaught error on purpose accept errors containing it."""
        self.allowed.append(fragment)

    def check(self, page) -> None:
        uncaught = [m for m in self.console_errors if any(u in m for u in UNCAUGHT)]
        uncaught += self.errors
        try:  # PyScript shows a Python error it did not catch as a .py-error box
            uncaught += page.locator(".py-error").all_text_contents()
        except Exception:  # the page is already closed: nothing to read
            pass
        uncaught = [m for m in uncaught if not any(a in m for a in self.allowed)]
        problems = []
        if self.outside:
            problems.append(f"requests left 127.0.0.1: {self.outside}")
        if uncaught:  # the first lines of each say what and where; the rest is JS frames
            problems.append("uncaught errors in the page:\n" + "\n---\n".join(m[-1500:] for m in uncaught[:3]))
        assert not problems, "; ".join(problems)


@pytest.fixture
def guard() -> PageGuard:
    return PageGuard()


@pytest.fixture
def page(context, guard):
    context.route("**/*", guard.route)
    page = context.new_page()
    page.on("pageerror", lambda exc: guard.errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and guard.console_errors.append(msg.text))
    yield page
    guard.check(page)


def wait_ready(page, timeout: int = BOOT_TIMEOUT_MS) -> None:
    """Wait until a pyclient page's Python has set `data-pyclient="ready"` on <html>."""
    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'",
                           timeout=timeout, polling=25)


@pytest.fixture
def open_page(page):
    """Navigate to a path on the dev server and wait until its Python is ready."""

    def open_(path: str = "/", timeout: int = BOOT_TIMEOUT_MS):
        page.goto(path)
        wait_ready(page, timeout)
        return page

    return open_
