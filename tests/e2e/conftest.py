"""Playwright on Debian's Chromium, with every test guarded against leaving 127.0.0.1.

The guard is pyclient's own (`pyclient.testing.PyclientPage`, what page authors get from the
`pyclient_page` fixture): each test fails when the page requests anything outside 127.0.0.1
(the request is also aborted, so nothing leaks) or when the page has an uncaught error; and
tests/conftest.py's `callback_errors` fails it when a listener, a renderer or a save raised in
a page of its browser context (pages log those and go on).

The helpers every module uses are in `tests/e2e/pages.py`: `ChatPage` (the chat as a person uses
it), `module_page` (a page booted once per module and mode) and `turn`. A module runs in both
modes with `pytestmark = BOTH_MODES`: its tests then run once with the page's Python on the main
thread and once in a PyScript worker (`mode`), and the pages open accordingly
(`?pyclient-worker=1`, which both sites answer with the page in worker mode and cross-origin
isolated). One Chromium serves the session (each xdist worker's), launched with a profile on
disk (`profile`): every test's `context` is that profile's, cleaned after the test, so that its
pages boot from Chromium's code cache. pytest-playwright's `browser` is that Chromium, and also
the plugin's `pyclient_browser`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from devserver.chromium import launch_args
from pyclient.testing import PyclientPage
from tests.e2e.pages import BOOT_TIMEOUT_MS, CRASHES, in_mode, wait_ready
from tests.e2e.profiles import Profile, Profiles

# Playwright's `expect` waits 5 s by default: a worker page's answer to an event crosses two
# threads, which on a loaded 2-core machine was seen to take longer. A passing assertion returns
# as soon as it holds.
expect.set_options(timeout=15_000)


@pytest.fixture(scope="module")
def mode(request) -> str:
    """Where the page's Python runs: "main" (the main thread) unless the module runs `BOTH_MODES`."""
    return getattr(request, "param", "main")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    return {**browser_type_launch_args, **launch_args()}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args, live_server):
    return {**browser_context_args, "base_url": live_server}


@pytest.fixture(scope="session")
def pyclient_browser(browser):
    """The plugin's browser is pytest-playwright's: one Chromium for the session."""
    return browser


# -- profiles on disk (tests/e2e/profiles.py): pages boot from Chromium's code cache ------------
@pytest.fixture(scope="session")
def profile(playwright, browser_type_launch_args, browser_context_args, tmp_path_factory) -> Iterator[Profile]:
    """The session's Chromium, launched with a profile on disk (`browser` is its `.browser`)."""
    profile = Profile.launch(playwright.chromium, tmp_path_factory.mktemp("chromium-profile"),
                             **browser_type_launch_args, **browser_context_args)
    yield profile
    profile.context.close()


@pytest.fixture(scope="session")
def module_profiles(playwright, browser_type_launch_args, browser_context_args, tmp_path_factory) -> Iterator[Profiles]:
    """A Chromium with a profile on disk per site for `module_page`'s pages (`profiles[base_url]`)."""
    profiles = Profiles(playwright.chromium, tmp_path_factory.mktemp("module-profiles"),
                        on_launch=_listen_for_crashes, **browser_type_launch_args, **browser_context_args)
    yield profiles
    profiles.close()


@pytest.fixture(scope="session")
def browser(profile):
    return profile.context.browser


@pytest.fixture
def context(profile) -> Iterator:
    """This test's browser context: the profile's, as clean as a new one (`Profile.clean`)."""
    yield profile.context
    profile.clean()


# -- renderer crashes ---------------------------------------------------------------------------
# Playwright says "Target crashed" and nothing more. Chromium says more to a browser-level CDP
# session: `Target.targetCrashed` carries the termination status ("crashed" with the signal, 11
# for a segmentation fault; "killed" with 9 when something else killed it, the kernel's OOM
# killer say; "oom" for V8's own out-of-memory). Each crash is recorded with the test it
# happened in and the state of the machine then (`tests.e2e.pages.CRASHES`), written into that
# test's report (a crash between tests into the next one's), and the crashes of failed tests are
# listed at the end of the session: a report is what reaches pytest from an xdist worker.
CRASH_SECTION = "Chromium renderer crash"
_current_item: list = [None]
_between_tests: list[str] = []
_crash_lines: list[str] = []


def _memory_available_mb() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return -1


def _crashed(params: dict) -> None:
    from tests.suite_report import chromium

    now = chromium()
    item = _current_item[0]
    crash = {**params, "test": item.nodeid if item else "", "renderers": now.renderers,
             "chromium_mb": round(now.mb), "available_mb": _memory_available_mb()}
    CRASHES.append(crash)
    line = (f"{crash['test'] or '(between tests)'}: status {crash['status']!r}, code {crash['errorCode']}; "
            f"{crash['renderers']} renderers alive, Chromium {crash['chromium_mb']} MB, "
            f"{crash['available_mb']} MB available on the machine")
    if item is None:
        _between_tests.append(line)
    else:
        item.add_report_section("call", CRASH_SECTION, line)


def _listen_for_crashes(browser) -> None:
    cdp = browser.new_browser_cdp_session()
    cdp.on("Target.targetCrashed", _crashed)
    cdp.send("Target.setDiscoverTargets", {"discover": True})


@pytest.fixture(scope="session", autouse=True)
def renderer_crashes(browser) -> list[dict]:
    """Every renderer crash of the session's Chromiums, as Chromium reports it (see `CRASHES`)."""
    _listen_for_crashes(browser)
    return CRASHES


@pytest.fixture(autouse=True)
def _name_the_test(request, renderer_crashes):
    while _between_tests:
        request.node.add_report_section("setup", CRASH_SECTION, _between_tests.pop(0))
    _current_item[0] = request.node
    yield
    _current_item[0] = None


def pytest_runtest_logreport(report) -> None:
    if report.failed:
        _crash_lines.extend(text for title, text in report.sections if CRASH_SECTION in title)


def pytest_terminal_summary(terminalreporter) -> None:
    if _crash_lines:
        terminalreporter.section("Chromium renderer crashes in failed tests")
        for line in dict.fromkeys(_crash_lines):
            terminalreporter.write_line(line)


@pytest.fixture
def guard(context) -> Iterator[PyclientPage]:
    """The test's page, guarded: `guard.allow_error(fragment)` accepts an error provoked on purpose."""
    guarded = PyclientPage(context.new_page())
    yield guarded
    guarded.check()


@pytest.fixture
def page(guard):
    return guard.page


@pytest.fixture
def open_page(page, mode):
    """Navigate to a path on the dev server (in the module's `mode`) and wait until its Python is ready."""

    def open_(path: str = "/", timeout: int = BOOT_TIMEOUT_MS):
        page.goto(in_mode(path, mode))
        wait_ready(page, timeout)
        return page

    return open_


@pytest.fixture
def serving(pyclient_site, scripted_agent):
    """The plugin's site answers `/agent` with this test's `scripted_agent` while the test runs."""
    pyclient_site.agent = scripted_agent
    yield scripted_agent
    pyclient_site.agent = None
