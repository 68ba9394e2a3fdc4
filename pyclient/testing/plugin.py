"""pyclient's pytest plugin (entry point `pytest11`, installed with `pip install 'pyclient-agui[testing]'`).

Its fixtures prove a page's tools work in Chromium with no model, no key and no network:
`scripted_agent` (a `ScriptedAgent` on a free 127.0.0.1 port), `pyclient_site` (the author's
folder of pages with the offline runtime, its agent path reaching the test's `scripted_agent`),
`pyclient_page` (a guarded `PyclientPage` on it), and the session's `pyclient_site_dir`,
`pyclient_runtime` and `pyclient_browser`; the ini options are `pyclient_site` and
`pyclient_agent_path`. Each fixture, its scope and the options: docs/testing.md ("The
fixtures"). pytest-playwright 0.10's warning about its own `base_url` fixture, which every test
through `pyclient_page` would print, is filtered (`PLAYWRIGHT_WARNING`). Loading the plugin
imports nothing heavy: the fixtures import Playwright, uvicorn and starlette when they need them.

```python
from pyclient.testing import plugin

print(plugin.DEFAULT_AGENT_PATH, plugin.DEFAULT_SITE)      # /agent web
```
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext

    from ._page import PyclientPage
    from ._scripted import ScriptedAgent
    from ._site import Site

__all__ = [
    "pyclient_browser", "pyclient_context", "pyclient_page", "pyclient_runtime", "pyclient_site",
    "pyclient_site_dir", "pytest_addoption", "pytest_configure", "scripted_agent",
]

DEFAULT_SITE = "web"
DEFAULT_AGENT_PATH = "/agent"
# pytest-playwright 0.10 defines its `base_url` fallback as a session-scoped fixture on a plugin
# instance, which pytest 9 deprecates; `pyclient_context` asks for `browser_context_args`, hence
# `base_url`. Nothing the author wrote causes it or can fix it, so only that fixture's is filtered.
PLAYWRIGHT_WARNING = (
    r"ignore:(?s)Session-scoped fixtures defined as instance methods are deprecated\..*'base_url' fixture"
    ":pytest.PytestRemovedIn10Warning"
)
"""The `filterwarnings` entry the plugin adds: pytest-playwright's deprecation of its own `base_url`."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pyclient", "pyclient: test your page's client tools")
    group.addoption("--pyclient-site", default=None, help="the folder of pages to serve (default: the ini value)")
    parser.addini("pyclient_site", "the folder of pages `pyclient_site` serves, relative to the rootdir",
                  default=DEFAULT_SITE)
    parser.addini("pyclient_agent_path", "the path the pages' Agent(url=...) posts to; it reaches `scripted_agent`",
                  default=DEFAULT_AGENT_PATH)


def pytest_configure(config: pytest.Config) -> None:
    # An ini entry (not `warnings.filterwarnings`): pytest applies these around every test, after
    # its own defaults, and a `-W` on the command line still overrides it.
    config.addinivalue_line("filterwarnings", PLAYWRIGHT_WARNING)


@pytest.fixture
def scripted_agent() -> Iterator[ScriptedAgent]:
    """A fresh `ScriptedAgent`, served on a free 127.0.0.1 port while the test runs."""
    from ._scripted import ScriptedAgent

    agent = ScriptedAgent()
    with agent.serve():
        yield agent


@pytest.fixture(scope="session")
def pyclient_site_dir(pytestconfig: pytest.Config) -> Path:
    """The folder of pages: `--pyclient-site`, else the `pyclient_site` ini option, relative to the rootdir."""
    try:
        named = pytestconfig.getoption("pyclient_site")
    except ValueError:  # the plugin was registered after the command line was parsed
        named = None
    folder = Path(named or str(pytestconfig.getini("pyclient_site")))
    folder = folder if folder.is_absolute() else Path(pytestconfig.rootpath) / folder
    if not folder.is_dir():
        raise pytest.UsageError(
            f"pyclient_site: {folder} is not a folder. Set `pyclient_site = <folder of your pages>` in "
            "your pytest configuration, pass --pyclient-site, or override the `pyclient_site_dir` fixture."
        )
    return folder


@pytest.fixture(scope="session")
def pyclient_runtime() -> Path:
    """The offline runtime (Pyodide, PyScript, the wheels, the lock), built once and cached per user."""
    from pyclient.server import build

    return build()


@pytest.fixture(scope="session")
def pyclient_site(pyclient_site_dir: Path, pyclient_runtime: Path, pytestconfig: pytest.Config) -> Iterator[Site]:
    """Your pages and the runtime served on 127.0.0.1 for the session; see `Site`."""
    from ._server import ServerThread
    from ._site import Site

    site = Site(pyclient_site_dir, pyclient_runtime, str(pytestconfig.getini("pyclient_agent_path")))
    with ServerThread(site) as server:
        site.url = server.url
        yield site
        site.url = None


@pytest.fixture(scope="session")
def pyclient_browser(browser_type: Any, browser_type_launch_args: dict[str, Any]) -> Iterator[Browser]:
    """Chromium for pyclient pages: pytest-playwright's launch arguments over `chromium_launch_args()`."""
    from ._chromium import chromium_launch_args

    browser: Browser = browser_type.launch(**{**chromium_launch_args(), **browser_type_launch_args})
    yield browser
    browser.close()


@pytest.fixture
def pyclient_context(pyclient_browser: Browser, pyclient_site: Site,
                     browser_context_args: dict[str, Any]) -> Iterator[BrowserContext]:
    """A fresh browser context whose `base_url` is the site."""
    context = pyclient_browser.new_context(**{**browser_context_args, "base_url": pyclient_site.url})
    yield context
    context.close()


@pytest.fixture
def pyclient_page(pyclient_context: BrowserContext, pyclient_site: Site,
                  scripted_agent: ScriptedAgent) -> Iterator[PyclientPage]:
    """A guarded page on the site; the site's agent path answers with this test's `scripted_agent`."""
    from ._page import PyclientPage

    pyclient_site.agent = scripted_agent
    page = PyclientPage(pyclient_context.new_page())
    try:
        yield page
        page.check()
    finally:
        pyclient_site.agent = None
