"""Errors at a page's start-up in Chromium, in both modes: PyScript's error box made readable by
pyclient (`pyclient.browser.show_startup_errors`) on the main thread, and made by pyclient's
renderer.js from the worker's stderr in worker mode: wrapped, with the fix in view, in the
chat's element when the page has one, and still in the console.

The page is web/tests/startup_errors.html; `?case=` picks where its Python fails (see
web/tests/startup_errors.py). Each test takes a screenshot into its `tmp_path`
(`--basetemp` to keep them).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOOT_TIMEOUT_MS, in_mode

MODES = pytest.mark.parametrize("mode", ["main", "worker"])

HINT = "Parameter 'color' of tool 'change_background' has no type hint"
HINT_FIX = "Annotate it, e.g. `color: str`."


@pytest.fixture
def server_log() -> Iterator[list[str]]:
    """The WARNING lines the dev server (`pyclient serve`'s app, in this process) logs meanwhile."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(record.getMessage())

    keep = Keep(logging.WARNING)
    logger = logging.getLogger("pyclient.server")
    logger.addHandler(keep)
    yield lines
    logger.removeHandler(keep)


def wait_for_line(lines: list[str], fragment: str, timeout_s: float = 10.0) -> str:
    """The first of `lines` holding `fragment`, once the server has logged it (the page posts it after showing the box)."""
    deadline = time.monotonic() + timeout_s
    while not (found := [line for line in lines if fragment in line]):
        assert time.monotonic() < deadline, f"no log line with {fragment!r}: {lines}"
        time.sleep(0.05)  # a poll interval
    return found[0]


def open_failing(page, guard, case: str, fragment: str, mode: str) -> tuple[object, list[str]]:
    """Open the page on `case` in `mode`; return its error box, once pyclient has placed it, and the console."""
    guard.allow_error(fragment)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(in_mode(f"/tests/startup_errors.html?case={case}", mode))
    expect(page.locator("html")).to_have_attribute("data-pyclient-mode", "worker" if mode == "worker" else "main-thread")
    box = page.locator(".py-error")
    expect(box).to_have_count(1, timeout=BOOT_TIMEOUT_MS)
    expect(box).to_have_css("white-space", "pre-wrap")   # pyclient has seen it
    return box, console


def assert_readable(page, box, text: str) -> None:
    """The box holds `text`, wraps (nothing wider than the box), shows its end (where Python
    puts the message and the fix) and lies in the window."""
    expect(box).to_contain_text(text)
    size = box.evaluate("b => ({scrollWidth: b.scrollWidth, clientWidth: b.clientWidth,"
                        " scrollTop: b.scrollTop, scrollHeight: b.scrollHeight, clientHeight: b.clientHeight})")
    assert size["scrollWidth"] <= size["clientWidth"], size
    assert size["scrollTop"] + size["clientHeight"] >= size["scrollHeight"] - 1, size
    bounds = box.bounding_box()
    assert bounds is not None and bounds["y"] + bounds["height"] <= page.viewport_size["height"], bounds


@MODES
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_tool_without_a_type_hint_is_shown_wrapped_in_the_chat_with_its_fix(page, guard, scheme, mode, tmp_path,
                                                                              server_log):
    page.emulate_media(color_scheme=scheme)
    box, console = open_failing(page, guard, "hint", HINT, mode)
    # In the chat, right under its header, in the chat's colours (PyScript's own are light only).
    expect(page.locator(".pyclient-chat > .pyclient-header + .py-error")).to_have_count(1)
    assert_readable(page, box, HINT_FIX)
    # The exception's line and its fix first; the traceback folded under it, there when opened.
    expect(box.locator(".pyclient-error-line")).to_contain_text(f"ConfigurationError: {HINT}")
    frames = box.locator("details.pyclient-error-traceback")
    expect(frames).not_to_have_attribute("open", "")
    expect(frames.locator("pre")).to_be_hidden()
    frames.locator("summary").click()
    expect(frames.locator("pre")).to_contain_text("Traceback (most recent call last)")
    colours = box.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b.parentElement).color]")
    assert colours[0] == colours[1], colours
    page.screenshot(path=tmp_path / f"startup-error-{scheme}-{mode}.png")
    # The console still has the whole error, as PyScript wrote it.
    assert any("ConfigurationError" in text and HINT_FIX in text for text in console), console
    # pyclient serve's log says the same line (the page posts it to the server that marked it).
    line = wait_for_line(server_log, "did not start")
    assert line.startswith("/tests/startup_errors.html did not start: pyclient._base._errors.ConfigurationError: "
                           f"{HINT}"), line
    assert HINT_FIX in line and "Traceback" not in line, line


@MODES
def test_an_error_before_any_chat_stays_at_the_end_of_the_page_wrapped(page, guard, mode, tmp_path):
    box, console = open_failing(page, guard, "hint-first", HINT, mode)
    assert box.evaluate("b => b.parentElement === document.body")
    assert_readable(page, box, HINT_FIX)
    page.screenshot(path=tmp_path / f"startup-error-no-chat-{mode}.png")
    assert any(HINT_FIX in text for text in console), console


@MODES
def test_an_import_error_in_a_tool_module_goes_into_the_element_the_page_named(page, guard, mode, tmp_path):
    box, console = open_failing(page, guard, "import", "No module named 'page_tools'", mode)
    assert box.evaluate("b => b.parentElement.id") == "chat"
    assert_readable(page, box, "ModuleNotFoundError: No module named 'page_tools'")
    page.screenshot(path=tmp_path / f"startup-error-import-{mode}.png")
    assert any("No module named 'page_tools'" in text for text in console), console


@MODES
def test_an_error_of_the_chat_goes_into_the_thread_element(page, guard, mode, tmp_path):
    box, console = open_failing(page, guard, "thread", "theme='blue' is not a theme", mode)
    assert box.evaluate("b => b.parentElement.id") == "chat"
    assert page.locator("#chat").get_attribute("data-pyclient-thread")
    assert_readable(page, box, "Pass 'light', 'dark' or None (follow the system).")
    page.screenshot(path=tmp_path / f"startup-error-thread-{mode}.png")
    assert any("is not a theme" in text for text in console), console


@MODES
def test_a_config_that_lists_no_pyclient_says_so_in_the_element_the_html_named(page, guard, mode, tmp_path):
    # It fails before any of pyclient's Python runs: on the main thread PyScript's box is placed
    # by renderer.js (pyclient.js's import); in a worker, where PyScript shows no box, pyclient.js's
    # PyScript hook sends the worker's stderr to renderer.js, which makes it.
    guard.allow_error("No module named 'pyclient'")
    page.goto(in_mode("/tests/no_packages.html", mode))
    box = page.locator("#chat > .py-error")
    expect(box).to_contain_text("ModuleNotFoundError: No module named 'pyclient'", timeout=BOOT_TIMEOUT_MS)
    expect(box).to_contain_text('add "packages": ["pyclient-agui"] to it')
    assert page.evaluate("document.documentElement.dataset.pyclientMode") == ("worker" if mode == "worker" else "main-thread")
    assert_readable(page, box, "pyclient-agui")
    assert page.locator(".py-error").count() == 1
    page.screenshot(path=tmp_path / f"startup-error-no-packages-{mode}.png")


@MODES
def test_a_page_that_fails_before_its_chat_starts_shows_the_error_in_the_shell_and_keeps_what_was_sent(page, guard, mode):
    # The chat's shell (pyclient.js, data-pyclient-chat) takes a message before Python runs;
    # then the page's Python fails: the message must not wait for ever in the outbox.
    guard.allow_error(HINT)
    page.goto(in_mode("/tests/startup_errors.html?case=hint-first&shell=1", mode), wait_until="commit")
    field = page.locator("#chat input[name=message]")
    expect(field).to_be_editable()
    field.fill("will this go?")
    field.press("Enter")
    box = page.locator(".py-error")
    expect(box).to_have_count(1, timeout=BOOT_TIMEOUT_MS)
    expect(page.locator(".pyclient-chat[data-shell=failed] > .pyclient-header + .py-error")).to_have_count(1)
    expect(box).to_have_css("white-space", "pre-wrap")
    assert_readable(page, box, HINT_FIX)
    # What was sent is back in the composer, nothing waits, and Send says it cannot go.
    expect(field).to_have_value("will this go?")
    expect(page.locator("#chat .pyclient-unsent")).to_have_count(0)
    expect(page.locator("#chat .pyclient-send")).to_be_disabled()
    expect(page.locator("#chat .pyclient-run-status")).to_have_text("Not started")


def test_a_page_without_pyclient_js_still_gets_the_box_wrapped_in_its_chat(page, guard, tmp_path):
    # No renderer.js on the page: pyclient's Python watcher (show_startup_errors) places the box.
    guard.allow_error(HINT)
    page.goto("/tests/startup_errors_bare.html?case=hint")
    assert page.evaluate("window.pyclientRenderer === undefined")
    box = page.locator(".pyclient-chat > .pyclient-header + .py-error")
    expect(box).to_have_count(1, timeout=BOOT_TIMEOUT_MS)
    expect(box).to_have_css("white-space", "pre-wrap")
    assert_readable(page, box, HINT_FIX)
