"""A Playwright page opened on pyclient pages: ready when PyScript has run them, guarded, with helpers.

The guard fails the test on any request that leaves 127.0.0.1 (the request is also aborted,
so nothing leaks), on an uncaught page error, on a console error that says something went
uncaught in Python, and on a renderer crash (the tab died). The helpers wait for a thread's
status, for a tool card waiting for the user, and approve or reject it with Playwright's
trusted click (pyclient ignores synthetic clicks on approvals).

```python
from pyclient.testing import PyclientPage

print(PyclientPage.READY_SCRIPT.count("py:all-done"))     # 1
```
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ._worker_pages import worker_path

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page, Route

__all__ = ["PyclientPage"]

LOCAL_HOSTS = frozenset({"127.0.0.1"})
OUTSIDE = re.compile(r"^(?!https?://127\.0\.0\.1(?::\d+)?(?:/|$))")
BOOT_TIMEOUT_MS = 60_000
# Console errors that mean something went uncaught or a page's code is broken (other console
# errors, such as a handler's logged traceback, are a tool failing on purpose and end as a
# tool result, not a crash).
UNCAUGHT = ("Uncaught", "PythonError", "Task exception was never retrieved", "was never awaited",
            "a thread listener raised", "pyclient renderer: a batch of DOM updates failed")


class PyclientPage:
    """A guarded Playwright page for pyclient pages (the `pyclient_page` fixture).

    Args:
        page: the Playwright page (its context's `base_url` is the site).

    Attributes:
        page: the Playwright page, for everything else (`locator`, `fill`, `evaluate`...).
        outside: URLs the page asked for outside 127.0.0.1 (aborted).
        errors: uncaught page errors and console errors that mean one.
        crashed: whether the page's renderer crashed.
    """

    # PyScript dispatches `py:all-done` on window once every script of the page has run.
    READY_SCRIPT = ("window.addEventListener('py:all-done', () => { window.__pyclientAllDone = true; },"
                    " { once: true });")

    def __init__(self, page: Page) -> None:
        self.page = page
        self.outside: list[str] = []
        self.errors: list[str] = []
        self._allowed: list[str] = []
        self.crashed = False
        # A regex (not a function) so that Playwright's driver only pauses the requests that
        # leave 127.0.0.1: the others never wait for Python, so a test may block in
        # `time.sleep` (`ScriptedAgent.wait_for_result`) while the page talks to the agent.
        page.context.route(OUTSIDE, self._route)
        page.add_init_script(self.READY_SCRIPT)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", self._console)
        # Playwright's own error names the crash ("Target crashed") only on the call it broke;
        # the guard says which page it was, wherever the test stood.
        page.on("crash", self._crash)

    def _route(self, route: Route) -> None:
        url = route.request.url
        if urlsplit(url).hostname not in LOCAL_HOSTS:
            self.outside.append(url)
            route.abort()
        else:
            route.continue_()

    def _crash(self, page: Page) -> None:
        self.crashed = True
        self.errors.append(f"Chromium's renderer crashed (the tab died) on {page.url}: see the browser's "
                           "stderr (DEBUG=pw:browser) for its exit status")

    def _console(self, message: Any) -> None:
        if message.type == "error" and any(u in message.text for u in UNCAUGHT):
            self.errors.append(message.text)

    def open(self, path: str = "/", timeout_ms: int = BOOT_TIMEOUT_MS, *, ready: str | None = None,
             worker: bool = False) -> Page:
        """Navigate to `path` on the site and wait until PyScript has run the page's scripts.

        Args:
            path: the page, relative to the site.
            timeout_ms: how long the boot may take.
            ready: a JavaScript expression that becomes true once the page is ready, for a page
                that goes on setting up after its scripts ran (restoring a thread, say):
                `"document.documentElement.dataset.ready === 'yes'"`.
            worker: open the page in worker mode: the site gives its `<script type="py">` the
                `worker` attribute and the page the cross-origin isolation a worker needs
                (`?pyclient-worker=1`), so one page is tested in both modes.

        Raises:
            AssertionError: a script of the page failed (PyScript's `.py-error` box), or the
                guard caught something.
        """
        self.page.goto(worker_path(path) if worker else path)
        self._wait_ready(timeout_ms, ready)
        return self.page

    def reload(self, timeout_ms: int = BOOT_TIMEOUT_MS, *, ready: str | None = None) -> Page:
        """Reload the page and wait as `open()` does."""
        self.page.reload()
        self._wait_ready(timeout_ms, ready)
        return self.page

    def _wait_ready(self, timeout_ms: int, ready: str | None) -> None:
        self.page.wait_for_function("window.__pyclientAllDone === true", timeout=timeout_ms, polling=25)
        if ready is not None:
            self.page.wait_for_function(ready, timeout=timeout_ms, polling=25)
        self.check()

    def allow_error(self, fragment: str) -> None:
        """Accept uncaught errors containing `fragment` (a test that provokes one on purpose)."""
        self._allowed.append(fragment)

    def clear(self) -> None:
        """Forget what was caught and allowed so far: for a page booted once and shared by
        several tests, each checked on its own (`check()` at its end, then `clear()`)."""
        self.outside.clear()
        self.errors.clear()
        self._allowed.clear()

    def check(self) -> None:
        """Fail if a request left 127.0.0.1 or something went uncaught in the page so far.

        Raises:
            AssertionError: naming the requests and the first errors.
        """
        uncaught = list(self.errors)
        if not self.page.is_closed() and not self.crashed:
            uncaught += self.page.locator(".py-error").all_text_contents()
        uncaught = [m for m in uncaught if not any(a in m for a in self._allowed)]
        problems = []
        if self.outside:
            problems.append(f"requests left 127.0.0.1: {self.outside}")
        if uncaught:
            problems.append("uncaught errors in the page:\n" + "\n---\n".join(m[-1500:] for m in uncaught[:3]))
        assert not problems, "; ".join(problems)

    def send(self, text: str, chat: str = ".pyclient-chat") -> None:
        """Type `text` into the chat's message box (`.pyclient-chat`, or the selector `chat`) and press Enter."""
        box = self.page.locator(f"{chat} input[name=message]").first
        box.fill(text)
        box.press("Enter")

    def wait_for_status(self, status: str, chat: str = ".pyclient-chat", timeout_ms: int = 30_000) -> None:
        """Wait until the chat (`.pyclient-chat`, or the selector `chat`) shows a run status
        (`"idle"`, `"running"`, `"error"`, `"closed"`) in its `data-status`."""
        self.page.locator(f"{chat}[data-status={status!r}]").first.wait_for(timeout=timeout_ms)

    def action(self, tool_name: str, status: str = "awaiting_approval", timeout_ms: int = 30_000) -> Locator:
        """Wait for the tool card of a `tool_name` call in `status` (a pending action by default); return it."""
        card = self.page.locator(f".pyclient-tool[data-tool={tool_name!r}][data-status={status!r}]").first
        card.wait_for(timeout=timeout_ms)
        return card

    def approve(self, tool_name: str, timeout_ms: int = 30_000) -> None:
        """Approve the pending `tool_name` call with a trusted click on its card's Approve button."""
        self.action(tool_name, timeout_ms=timeout_ms).locator(".pyclient-approve").click()

    def reject(self, tool_name: str, timeout_ms: int = 30_000) -> None:
        """Reject the pending `tool_name` call with a trusted click on its card's Reject button."""
        self.action(tool_name, timeout_ms=timeout_ms).locator(".pyclient-reject").click()
