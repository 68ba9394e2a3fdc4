"""The demo page boots offline in Chromium and shows its progress until Python is ready."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.helpers import wait_for


def test_demo_boots_with_progress_and_imports(page, guard):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    # Record every label the progress indicator shows, as it shows it.
    page.add_init_script("""window.__labels = [];
        new MutationObserver(() => {
            const label = document.querySelector('#boot .boot-label');
            if (label) window.__labels.push(label.textContent);
        }).observe(document, {subtree: true, childList: true, characterData: true});""")
    page.goto("/")
    # The progress indicator is visible while Pyodide loads and says what is loading.
    progress = page.locator("#boot")
    expect(progress).to_be_visible()
    expect(progress.locator(".boot-label")).to_contain_text("%")

    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'",
                           timeout=60_000, polling=25)
    expect(progress).to_be_hidden()
    labels = page.evaluate("window.__labels")
    # It said what was loading, with a step count and a percentage that went up.
    # The long step (Pyodide loading its wasm and the wheels) is named with its place.
    assert "Loading interpreter… (4/8, 50%)" in labels, labels
    assert labels[-1] == "Ready… (8/8, 100%)", labels
    percents = [int(label.split(", ")[1].rstrip("%)")) for label in labels if "%)" in label]
    assert percents == sorted(percents) and len(set(percents)) >= 4, labels
    expect(page.locator("#status")).to_contain_text("ready")
    expect(page.locator("#status")).to_contain_text("change_background")
    modules = page.evaluate("document.documentElement.dataset.pyclientModules").split()
    # Usable without ag-ui's models, pydantic itself (pydantic_core's errors and JSON suffice until
    # the tools' schemas are built), pydantic's model and JSON Schema machinery and markdown-it:
    # most of the import time. The page builds and loads them once idle. Nor urllib.parse or
    # importlib.resources (about 0.15 s together).
    assert modules == ["pyclient"]
    idle = ["tool schemas built ahead of the first request (9 tools", "AG-UI models loaded ahead of the first request"]
    # Console events reach `console` while Playwright talks to the page: the predicate asks it.
    wait_for(lambda: page.evaluate("1") and all(any(line in text for text in console) for line in idle), 10,
             "the idle-time lines in the console")
    for line in idle:
        assert any(line in text for text in console), console
    expect(page.locator("#status")).to_contain_text("ag-ui-protocol")  # the versions, once idle
    # Everything came from this server: Pyodide, PyScript, the lock and the wheels.
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in requests)
    assert any(url.endswith("/pyodide/pyodide-lock.json") for url in requests)
    assert any("/pyodide/pydantic_core-" in url for url in requests)
    assert any("/pyodide/pyclient_agui-" in url for url in requests)  # the pyclient-agui wheel
    assert not guard.outside
