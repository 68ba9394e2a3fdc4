"""The demo page boots offline in Chromium and shows its progress until Python is ready."""

from __future__ import annotations

from playwright.sync_api import expect


def test_demo_boots_with_progress_and_imports(page, guard):
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto("/")
    # The progress indicator is visible while Pyodide loads and says what is loading.
    progress = page.locator("#boot")
    expect(progress).to_be_visible()
    expect(progress.locator(".boot-label")).to_contain_text("%")

    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'",
                           timeout=60_000, polling=25)
    expect(progress).to_be_hidden()
    expect(page.locator("#status")).to_contain_text("ready")
    expect(page.locator("#status")).to_contain_text("change_background")
    modules = page.evaluate("document.documentElement.dataset.pyclientModules").split()
    assert modules == ["pyclient", "pydantic", "ag_ui.core"]
    # Everything came from this server: Pyodide, PyScript, the lock and the wheels.
    assert any(url.endswith("/pyodide/pyodide.asm.wasm") for url in requests)
    assert any(url.endswith("/pyodide/pyodide-lock.json") for url in requests)
    assert any("/pyodide/pydantic_core-" in url for url in requests)
    assert any("/pyodide/pyclient-" in url for url in requests)
    assert not guard.outside
