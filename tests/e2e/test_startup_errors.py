"""Errors at a page's start-up in Chromium: PyScript's error box made readable by pyclient
(`pyclient.browser.show_startup_errors`): wrapped, with the fix in view, in the chat's element
when the page has one, and still in the console.

The page is web/tests/startup_errors.html; `?case=` picks where its Python fails (see
web/tests/startup_errors.py). Each test takes a screenshot into its `tmp_path`
(`--basetemp` to keep them).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOOT_TIMEOUT_MS

HINT = "Parameter 'color' of tool 'change_background' has no type hint"
HINT_FIX = "Annotate it, e.g. `color: str`."


def open_failing(page, guard, case: str, fragment: str) -> tuple[object, list[str]]:
    """Open the page on `case`; return its error box, once pyclient has placed it, and the console."""
    guard.allow_error(fragment)
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(f"/tests/startup_errors.html?case={case}")
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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_tool_without_a_type_hint_is_shown_wrapped_in_the_chat_with_its_fix(page, guard, scheme, tmp_path):
    page.emulate_media(color_scheme=scheme)
    box, console = open_failing(page, guard, "hint", HINT)
    # In the chat, right under its header, in the chat's colours (PyScript's own are light only).
    expect(page.locator(".pyclient-chat > .pyclient-header + .py-error")).to_have_count(1)
    assert_readable(page, box, HINT_FIX)
    colours = box.evaluate("b => [getComputedStyle(b).color, getComputedStyle(b.parentElement).color]")
    assert colours[0] == colours[1], colours
    page.screenshot(path=tmp_path / f"startup-error-{scheme}.png")
    # The console still has the whole error, as PyScript wrote it.
    assert any("ConfigurationError" in text and HINT_FIX in text for text in console), console


def test_an_error_before_any_chat_stays_at_the_end_of_the_page_wrapped(page, guard, tmp_path):
    box, console = open_failing(page, guard, "hint-first", HINT)
    assert box.evaluate("b => b.parentElement === document.body")
    assert_readable(page, box, HINT_FIX)
    page.screenshot(path=tmp_path / "startup-error-no-chat.png")
    assert any(HINT_FIX in text for text in console), console


def test_an_import_error_in_a_tool_module_goes_into_the_element_the_page_named(page, guard, tmp_path):
    box, console = open_failing(page, guard, "import", "No module named 'page_tools'")
    assert box.evaluate("b => b.parentElement.id") == "chat"
    assert_readable(page, box, "ModuleNotFoundError: No module named 'page_tools'")
    page.screenshot(path=tmp_path / "startup-error-import.png")
    assert any("No module named 'page_tools'" in text for text in console), console


def test_an_error_of_the_chat_goes_into_the_thread_element(page, guard, tmp_path):
    box, console = open_failing(page, guard, "thread", "theme='blue' is not a theme")
    assert box.evaluate("b => b.parentElement.id") == "chat"
    assert page.locator("#chat").get_attribute("data-pyclient-thread")
    assert_readable(page, box, "Pass 'light', 'dark' or None (follow the system).")
    page.screenshot(path=tmp_path / "startup-error-thread.png")
    assert any("is not a theme" in text for text in console), console
