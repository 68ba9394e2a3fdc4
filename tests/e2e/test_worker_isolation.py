"""Worker mode as deployed, in Chromium: `pyclient serve` isolates a worker page and no other,
pyclient.js runs a worker page that is not isolated on the main thread (saying so), and on a
static host that sends no headers the service worker `pyclient vendor` writes isolates it after
one reload.

One folder, vendored once (`vendor()`), holds the pages: `worker.html` (a `<script type="py"
worker>` after pyclient.js and PyScript), `sw.html` (the same, naming the service worker with
`data-coi-worker`) and `main.html` (pyclient.js alone). Two servers serve it for the module:
`pyclient serve`'s app (`create_app`, isolation on "auto") and a plain static server
(`StaticDir`, no COOP/COEP, as GitHub Pages). Each test has its own browser context, so no
service worker registered by one reaches another. The page's Python is a few lines on a bare
interpreter (no packages): what is tested is where it runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devserver.background import ServerThread
from pyclient.testing import PyclientPage
from tests.e2e.pages import READY

PROBE = """\
from pyscript import RUNNING_IN_WORKER, document, window

root = document.documentElement
root.dataset.ranIn = "worker" if RUNNING_IN_WORKER else "main-thread"
root.dataset.isolated = "yes" if window.crossOriginIsolated else "no"
root.dataset.pyclient = "ready"
"""
PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <link rel="icon" href="data:,">
  <script type="module" src="pyclient/pyclient.js"{coi_worker}></script>
  <script type="module" src="pyscript/core.js"></script>
</head>
<body>
  <script type="py" worker src="probe.py" config='{{"interpreter": "./pyodide/pyodide.mjs"}}'></script>
</body>
</html>
"""
MAIN_PAGE = '<!doctype html><link rel="icon" href="data:,"><script type="module" src="pyclient/pyclient.js"></script>'
WARNING = ("pyclient: This page is not cross-origin isolated (its response had no COOP/COEP headers, or this browser "
           "did not accept them), so pyclient runs Python on the page's main thread: serve it with "
           "`Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: credentialless` (pyclient "
           "serve does; on a static host, the `_headers` file pyclient vendor writes, or its service worker: "
           'data-coi-worker="coi-worker.js" on the script tag of pyclient.js) to run it in a worker. See "Worker '
           "mode\" in pyclient's deployment guide.")
STATE = ("() => { const d = document.documentElement.dataset; return {mode: d.pyclientMode, fallback: d.pyclientFallback,"
         " ranIn: d.ranIn, isolated: d.isolated, crossOriginIsolated} }")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, runtime) -> Path:
    from pyclient.server import vendor

    folder = tmp_path_factory.mktemp("isolation-site")
    (folder / "probe.py").write_text(PROBE)
    (folder / "worker.html").write_text(PAGE.format(coi_worker=""))
    (folder / "sw.html").write_text(PAGE.format(coi_worker=' data-coi-worker="coi-worker.js"'))
    (folder / "main.html").write_text(MAIN_PAGE)
    vendor(folder, runtime=runtime)
    return folder


@pytest.fixture(scope="module")
def served(site, runtime) -> Iterator[str]:
    """`pyclient serve`'s app over the folder, with its default isolation ("auto")."""
    from pyclient.server import create_app

    with ServerThread(create_app(site, runtime)) as server:
        yield server.url


@pytest.fixture(scope="module")
def static_host(site) -> Iterator[str]:
    """The vendored folder on a plain static server: no COOP/COEP on any response."""
    from starlette.applications import Starlette
    from starlette.routing import Mount

    from pyclient.server import StaticDir

    with ServerThread(Starlette(routes=[Mount("/", app=StaticDir(site))])) as server:
        yield server.url


@pytest.fixture
def new_guard(browser, watch_callback_errors) -> Iterator:
    """`new_guard(base_url)`: a guarded page in a fresh browser context (its own service workers)."""
    contexts = []

    def open_(base_url: str) -> PyclientPage:
        context = browser.new_context(base_url=base_url)
        contexts.append(context)
        watch_callback_errors(context)
        return PyclientPage(context.new_page())

    yield open_
    for context in contexts:
        context.close()


def test_serve_isolates_the_worker_page_and_not_the_main_thread_page(served, new_guard):
    guard = new_guard(served)
    page = guard.open("/worker.html", ready=READY)
    assert page.evaluate(STATE) == {"mode": "worker", "fallback": None, "ranIn": "worker", "isolated": "yes",
                                    "crossOriginIsolated": True}
    page.goto("/main.html")
    page.wait_for_function("document.documentElement.dataset.pyclientMode", polling=25)
    assert page.evaluate(STATE)["mode"] == "main-thread" and page.evaluate("crossOriginIsolated") is False
    guard.check()


def test_a_worker_page_that_is_not_isolated_runs_its_python_on_the_main_thread_and_says_why(static_host, new_guard):
    guard = new_guard(static_host)
    warnings: list[str] = []
    guard.page.on("console", lambda message: message.type == "warning" and warnings.append(message.text))
    page = guard.open("/worker.html", ready=READY)
    assert page.evaluate(STATE) == {"mode": "main-thread", "fallback": "no-isolation-headers", "ranIn": "main-thread",
                                    "isolated": "no", "crossOriginIsolated": False}
    assert page.locator("script[type=py]").get_attribute("worker") is None
    assert [text for text in warnings if text.startswith("pyclient:")] == [WARNING]
    guard.check()


def test_the_vendored_service_worker_isolates_a_worker_page_after_one_reload(static_host, new_guard):
    guard = new_guard(static_host)
    # Each document of the tab, as it starts: how it was navigated, whether the service worker
    # served it, whether it is isolated, and what pyclient.js had noted. (Not the page's `load`
    # events: pyclient.js may reload before the first document's `load`, on a fast registration.)
    guard.page.add_init_script("""sessionStorage.setItem('test-documents', (sessionStorage.getItem('test-documents') || '')
        + ` ${performance.getEntriesByType('navigation')[0]?.type}/${navigator.serviceWorker?.controller ? 'sw' : 'network'}`
        + `/${crossOriginIsolated}/${sessionStorage.getItem('pyclient-coi-worker')}`)""")
    page = guard.open("/sw.html", ready=READY)
    assert page.evaluate(STATE) == {"mode": "worker", "fallback": None, "ranIn": "worker", "isolated": "yes",
                                    "crossOriginIsolated": True}
    # The first document registered it and reloaded, once; the second came through it, isolated.
    assert page.evaluate("sessionStorage.getItem('test-documents')").split() == [
        "navigate/network/false/null", "reload/sw/true/registered"]
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == f"{static_host}/coi-worker.js"
    assert page.evaluate("sessionStorage.getItem('pyclient-coi-worker')") is None  # isolated: the guard is reset
    guard.check()
