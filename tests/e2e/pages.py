"""The e2e suite's one set of helpers: the chat as a person uses it, and the pages tests run on.

`ChatPage` is a page object for a `Chat` on a Playwright page: `send`, `wait_idle` and the
locators the tests read; approving or rejecting a call is the guard's own (`PyclientPage.approve`,
`reject`, `action`), which page authors use too. `module_page` makes the fixture of a page
booted once per module and mode (a boot costs seconds; each test starts from the page's own
reset), and `turn` gives one test its turn on it, checked by the guard at its end.

```python
from tests.e2e.pages import ChatPage, module_page, turn

booted = module_page("/tests/stream.html", site="plugin")   # a module fixture named `booted`

def test_hello(booted, scripted_agent, serving):
    with turn(booted) as guard:
        chat = ChatPage(guard.page)
        chat.send("hello")
        chat.wait_idle()
```
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from pyclient.testing import PyclientPage
from pyclient.testing._worker_pages import worker_path

TIMEOUT_MS = 30_000
BOOT_TIMEOUT_MS = 60_000

# The repository's test pages set `data-pyclient="ready"` on <html> once their Python is set up.
READY = "document.documentElement.dataset.pyclient === 'ready'"


CRASHES: list[dict] = []
"""The renderer crashes of the session's Chromium, as its CDP reports them (tests/e2e/conftest.py)."""

BOTH_MODES = pytest.mark.parametrize("mode", ["main", "worker"], indirect=True, scope="module")
"""Run a test with the page's Python on the main thread and in a worker (the `mode` fixture).

A test runs in both modes when what it checks crosses between the page and the worker: a
person's events (clicks, keys, typing, paste and drop, focus and caret, scrolling) and whether
they were trusted, the page's APIs the worker reaches (clipboard, storage, IndexedDB, Web Locks,
the page's URL), and the nodes the chat makes through the worker's mirror (each kind at least
once). What Python decides from what it already has (the request that goes, an outcome's words,
limits, validation, schemas) is the same code in both modes: those tests are `MAIN_ONLY`."""

MAIN_ONLY = pytest.mark.parametrize("mode", ["main"], indirect=True, scope="module")
"""Run a test with the page's Python on the main thread only, in a module whose other tests run
`BOTH_MODES`: the same parameter, so they share the module's main-thread page (a test with no
`mode` parameter would boot a page of its own)."""


def in_mode(path: str, mode: str) -> str:
    """`path` as it opens the page in `mode` ("worker": with the query that asks for worker mode)."""
    return worker_path(path) if mode == "worker" else path


class ChatPage:
    """The chat under `root` (the page's first chat by default) on `page`, as a person uses it.

    Every wait ends as soon as its condition holds; `timeout_ms` only turns a condition that is
    never reached into a failure.
    """

    def __init__(self, page: Page, root: str = ".pyclient-chat:not(.pyclient-thread-list)",
                 timeout_ms: int = TIMEOUT_MS) -> None:
        self.page = page
        self.root = page.locator(root).first
        self.timeout_ms = timeout_ms
        self.field = self.root.locator(".pyclient-form input[name=message]")
        self.send_button = self.root.locator(".pyclient-send")
        self.users = self.root.locator(".pyclient-user")
        self.assistants = self.root.locator(".pyclient-assistant")
        self.status = self.root.locator(".pyclient-run-status")

    def send(self, text: str, *, taken: bool = True) -> None:
        """Type `text` and click Send; with `taken`, return once the chat took it (its bubble
        shows). In a worker the click reaches Python a task later, and until then the status
        is still the last run's: a `wait_idle()` right after an untaken send would pass at once.
        `taken=False` for a send the chat refuses (wait for what it says instead)."""
        before = self.users.count()
        self.field.fill(text)
        self.send_button.click()
        if taken:
            try:
                expect(self.users).to_have_count(before + 1, timeout=self.timeout_ms)
            except AssertionError as exc:
                raise AssertionError(f"the chat did not take {text!r}: {self.describe()}") from exc

    def describe(self) -> str:
        """What the chat shows now, in a line: said when a wait fails (with what the test page's
        `window.t.state()` says of the thread, where the page has it)."""
        try:
            python = self.page.evaluate("async () => window.t?.state ? String(await window.t.state()) : null")
        except Exception as exc:  # a page whose Python does not answer: that is what to report
            python = f"no answer: {exc}"
        return f"thread says {python!r}; " + str(self.root.evaluate("""root => JSON.stringify({
            chats: document.querySelectorAll('.pyclient-chat').length, connected: root.isConnected,
            parent: root.parentElement?.id, generation: root.parentElement?.dataset.generation,
            readOnly: root.dataset.readOnly, status: root.dataset.status, words: root.querySelector('.pyclient-run-status')?.textContent,
            input: root.querySelector('.pyclient-form input[name=message]')?.value,
            send: root.querySelector('.pyclient-send')?.disabled, items: root.querySelectorAll('.pyclient-messages > li').length,
            notices: [...root.querySelectorAll('[role=alert], [role=status]')].map(n => n.textContent).filter(Boolean)})"""))

    def wait_status(self, status: str) -> None:
        """Wait until the chat's run status (`data-status`) is `status` ("idle", "running", "error", "closed")."""
        expect(self.root).to_have_attribute("data-status", status, timeout=self.timeout_ms)

    def wait_idle(self) -> None:
        """Wait until the chat's run is over (`data-status="idle"`)."""
        self.wait_status("idle")

    @property
    def last_answer(self) -> Locator:
        """The last assistant bubble."""
        return self.assistants.last


def record_states(page: Page, expression: str) -> None:
    """Record the value of `expression` (JavaScript, over `document`) after every change to the
    page's DOM, each new value once, for `recorded_states`. A state that lasts a moment (a
    section open while it streams) is seen however late a poll from the test would come: the
    observer runs after every task that changed the page."""
    page.evaluate("""expression => {
        const read = new Function('return (' + expression + ')');
        const states = window.__states = [];
        const note = () => { const value = JSON.stringify(read()); if (states.at(-1) !== value) states.push(value); };
        note();
        new MutationObserver(note).observe(document.documentElement,
            {subtree: true, childList: true, attributes: true, characterData: true});
    }""", expression)


def recorded_states(page: Page) -> list:
    """The values `record_states` saw, in order."""
    return [json.loads(value) for value in page.evaluate("window.__states")]


def wait_ready(page: Page, timeout: int = BOOT_TIMEOUT_MS) -> None:
    """Wait until a test page's Python has set `data-pyclient="ready"` on <html>."""
    page.wait_for_function(READY, timeout=timeout, polling=25)


def module_page(path: str | None, *, site: str = "live", permissions: tuple[str, ...] = ()):
    """A module-scoped fixture: a guarded page at `path`, booted once per module and `mode`, in
    the on-disk profile of its site (`module_profiles`, tests/e2e/profiles.py), which is emptied
    once the module's last such page closes.

    Args:
        path: the test page; None: a blank page the module's tests open themselves (a page
            booted again with another query, say).
        site: "live", the dev server (`live_server`: its embedded and test agents), or "plugin",
            the plugin's site (`pyclient_site`: its `/agent` is the running test's
            `scripted_agent` while the test asks for `serving`).
        permissions: granted to the context for the site's origin (`"clipboard-read"`, ...).
    """

    @pytest.fixture(scope="module")
    def booted(request, mode, module_profiles, watch_callback_errors) -> Iterator[PyclientPage]:
        base = request.getfixturevalue("live_server") if site == "live" else request.getfixturevalue("pyclient_site").url
        profile = module_profiles[base]
        context = profile.context
        if permissions:
            context.grant_permissions(list(permissions), origin=base)
        watch_callback_errors(context)
        guard = PyclientPage(profile.new_page())
        if path is not None:
            guard.open(path, ready=READY, worker=mode == "worker")
        yield guard
        profile.close(guard.page)

    return booted


@contextmanager
def said(page: Page, fragment: str, count: int = 1, timeout_ms: int = TIMEOUT_MS) -> Iterator[list[str]]:
    """A barrier for actions that must change nothing: after the block, wait until the page's
    console has said `fragment` `count` times. pyclient logs each click it ignores
    ("pyclient: ignored an untrusted click ..."), after it has handled it: once the lines are
    there, whatever the clicks could have done would have been done. Yields the lines seen."""
    seen: list[str] = []

    def on_console(message) -> None:
        if fragment in message.text:
            seen.append(message.text)

    page.on("console", on_console)
    try:
        yield seen
        deadline = time.monotonic() + timeout_ms / 1000
        while len(seen) < count:
            left_ms = (deadline - time.monotonic()) * 1000
            assert left_ms > 0, f"the console said {fragment!r} {len(seen)} times, not {count}: {seen}"
            try:
                page.wait_for_event("console", timeout=left_ms)
            except PlaywrightTimeoutError:
                pass
    finally:
        page.remove_listener("console", on_console)


@contextmanager
def turn(guard: PyclientPage) -> Iterator[PyclientPage]:
    """One test's turn on a shared page: the guard is checked at its end and emptied for the next."""
    try:
        yield guard
        guard.check()
    finally:
        guard.clear()
