"""`python_tool` in Chromium: the model's Python runs in a sandbox beside the page, in both modes.

The page is web/tests/python_tool.html on the dev server's `/agent/media`: a pydantic-ai
`AGUIAdapter` agent whose scripted model calls the tool a message names with the JSON after it
("call run_python {"code": ...}") and records each tool return (`media_log`), then answers
"Tool returned: ...". The page boots once per mode; its tool's timeout is 6 s. Both modes: the
sandbox is hosted by the page's main thread (assets/sandbox.js), which a worker's pyclient
reaches across threads.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, READY, ChatPage, module_page, turn
from tests.helpers import png_bytes

pytestmark = BOTH_MODES

TIMEOUT = 30_000
THREAD = f"python-{uuid.uuid4().hex[:8]}"

python_page = module_page(f"/tests/python_tool.html?timeout=6&store=1&thread={THREAD}")


@pytest.fixture
def py(python_page, media_log):
    media_log.clear()
    with turn(python_page):
        yield python_page.page


def call(page, code: str) -> None:
    ChatPage(page).send("call run_python " + json.dumps({"code": code}))


def returned(page, media_log, count: int = 1) -> list:
    """The items of the tool's last return the model received (text, files as (type, bytes))."""
    expect(page.locator(".pyclient-assistant", has_text="Tool returned")).to_have_count(count, timeout=TIMEOUT)
    expect(page.locator(".pyclient-chat")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)
    returns = [r.tool_returns["run_python"] for r in media_log.received if "run_python" in r.tool_returns]
    return returns[-1]


def answers(page) -> int:
    return page.locator(".pyclient-assistant", has_text="Tool returned").count()


def last_card(page):
    return page.locator(".pyclient-tool[data-tool='run_python']").last


class Probe:
    """An HTTP server on 127.0.0.1 that counts the requests it sees (another origin than the page's)."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        probe = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                probe.hits.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(b"reached")

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def probe() -> Iterator[Probe]:
    server = Probe()
    yield server
    server.close()


def test_a_csv_the_person_attached_is_summarised_by_the_models_code(py, media_log):
    before = answers(py)
    py.locator(".pyclient-file-picker").set_input_files(
        [{"name": "sales.csv", "mimeType": "text/csv", "buffer": b"region,amount\nnorth,10\nsouth,20\neast,30\n"}])
    expect(py.locator(".pyclient-attachment-list")).to_contain_text("sales.csv")
    call(py, "import csv, statistics\n"
             "rows = list(csv.DictReader(open('/data/sales.csv')))\n"
             "print(len(rows), 'rows;', open('/data/page.txt').read())\n"
             "statistics.mean(float(r['amount']) for r in rows)")
    [text] = returned(py, media_log, before + 1)
    assert text == "stdout:\n3 rows; from the page\nresult: 20.0"
    card = last_card(py)
    expect(card).to_have_attribute("data-status", "completed")
    expect(card).to_contain_text("statistics.mean")      # the code, shown in the card


def test_variables_and_imports_persist_between_calls_of_the_thread(py, media_log):
    before = answers(py)
    call(py, "import markdown_it\ncounter = 41")
    assert returned(py, media_log, before + 1) == ["(the code ran: it printed nothing and its last line is not an expression)"]
    call(py, "counter += 1\nawait __import__('asyncio').sleep(0)\n(counter, markdown_it.MarkdownIt().render('*hi*'))")
    assert returned(py, media_log, before + 2) == ["result: (42, '<p><em>hi</em></p>\\n')"]


def test_a_png_the_code_writes_reaches_the_model_as_an_image_and_shows_in_the_card(py, media_log):
    before = answers(py)
    png = png_bytes(6, 4, (200, 40, 40))
    call(py, "import base64, pathlib\n"
             f"pathlib.Path('/output/chart.png').write_bytes(base64.b64decode({__import__('base64').b64encode(png).decode()!r}))\n"
             "print('drawn')")
    items = returned(py, media_log, before + 1)
    assert items == [f"stdout:\ndrawn\nfiles from /output/: chart.png (image/png, {len(png)} B)", ("image/png", png)]
    image = last_card(py).locator(".pyclient-tool-media img")
    expect(image).to_have_attribute("alt", "chart.png")


def test_an_approved_tool_shows_the_code_as_written_and_runs_it_once_approved(py, media_log):
    before = answers(py)
    ChatPage(py).send("call run_checked_python " + json.dumps({"code": "total = 2 + 3\nprint(total)"}))
    card = py.locator(".pyclient-tool[data-tool='run_checked_python']").last
    expect(card).to_have_attribute("data-status", "awaiting_approval", timeout=TIMEOUT)
    expect(card.locator(".pyclient-tool-args")).to_have_text("code:\ntotal = 2 + 3\nprint(total)")
    expect(card.locator(".pyclient-tool-args")).to_be_visible()
    card.locator(".pyclient-approve").click()
    expect(py.locator(".pyclient-assistant", has_text="Tool returned")).to_have_count(before + 1, timeout=TIMEOUT)
    assert media_log.received[-1].tool_returns == {"run_checked_python": ["stdout:\n5"]}


def test_an_error_gives_the_model_the_traceback_in_the_codes_own_lines(py, media_log):
    before = answers(py)
    call(py, "print('before')\ndef half(n):\n    return n / 0\nhalf(4)")
    [text] = returned(py, media_log, before + 1)
    assert text.startswith("stdout:\nbefore\nTraceback (most recent call last):\n  File \"<code>\", line 4, in <module>")
    assert "  File \"<code>\", line 3, in half\n    return n / 0" in text
    assert text.endswith("ZeroDivisionError: division by zero")
    assert "_pyodide" not in text and "sandbox_runner" not in text   # no frame of the runner's
    expect(last_card(py)).to_have_attribute("data-status", "failed")


def test_the_code_reaches_neither_the_page_nor_the_network_nor_pyclient(py, media_log, probe, live_server, probe_log):
    before = answers(py)
    own = f"{live_server}/test/probe/own-{uuid.uuid4().hex[:8]}"
    code = f"""
import js
out = {{}}
out['document'] = hasattr(js, 'document') or hasattr(js, 'localStorage')
for name, url in (('own', {own!r}), ('other', {probe.url + '/fetch'!r})):
    try:
        await js.fetch(url)
        out[name] = 'reached'
    except Exception as exc:
        out[name] = type(exc).__name__
try:
    from pyodide.http import pyfetch
    await pyfetch({probe.url + '/pyfetch'!r})
    out['pyfetch'] = 'reached'
except Exception as exc:
    out['pyfetch'] = type(exc).__name__
try:
    xhr = js.XMLHttpRequest.new()
    xhr.open('GET', {probe.url + '/xhr'!r}, False)
    xhr.send()
    out['xhr'] = 'reached'
except Exception as exc:
    out['xhr'] = type(exc).__name__
import asyncio
from pyodide.ffi import create_proxy
try:
    socket = js.WebSocket.new({probe.url.replace('http', 'ws') + '/ws'!r})
    heard = asyncio.get_running_loop().create_future()
    for event in ('open', 'error'):
        socket.addEventListener(event, create_proxy(lambda e: heard.done() or heard.set_result(e.type)))
    out['websocket'] = await heard
except Exception as exc:
    out['websocket'] = type(exc).__name__
try:
    js.indexedDB.open('pyclient')
    out['indexeddb'] = 'opened'
except Exception as exc:
    out['indexeddb'] = type(exc).__name__
try:
    import pyclient
    out['pyclient'] = 'imported'
except ImportError as exc:
    out['pyclient'] = type(exc).__name__
out
"""
    call(py, code)
    [text] = returned(py, media_log, before + 1)
    result = eval(text.removeprefix("result: "))   # the repr of a dict of str
    assert result == {"document": False, "own": "JsException", "other": "JsException", "pyfetch": "AbortError",
                      "xhr": "JsException", "websocket": "error", "indexeddb": "JsException",
                      "pyclient": "ModuleNotFoundError"}, result
    assert probe.hits == []                                    # the other origin saw nothing
    assert [path for path in probe_log if own.endswith(path)] == []   # nor did the page's own
    py.evaluate("url => fetch(url)", own)                      # which the page itself reaches
    assert [path for path in probe_log if own.endswith(path)] == [own.removeprefix(live_server)]


def test_an_endless_loop_is_stopped_at_the_timeout_and_the_next_call_is_told_its_state_is_gone(py, media_log):
    before = answers(py)
    call(py, "kept = 1")
    returned(py, media_log, before + 1)
    call(py, "while True:\n    pass")
    expect(last_card(py)).to_have_attribute("data-status", "executing", timeout=TIMEOUT)
    assert py.evaluate("1 + 1") == 2     # the page answers while the sandbox spins
    [text] = returned(py, media_log, before + 2)
    assert text.startswith("The code ran longer than 6 s and was stopped. The Python session was restarted")
    expect(py.locator('iframe[data-pyclient-sandbox^="run_python/"]')).to_have_count(0)   # its worker ended with it
    call(py, "kept")
    [text] = returned(py, media_log, before + 3)
    assert text.startswith("[A new Python session: Variables, imports and files from earlier calls are gone")
    assert text.endswith("NameError: name 'kept' is not defined")


def test_memory_past_the_ceiling_and_output_past_the_caps_are_cut(py, media_log):
    before = answers(py)
    call(py, "blob = bytearray(400 * 2**20)")
    [text] = returned(py, media_log, before + 1)
    assert text.startswith("The code used more memory than the sandbox's 256 MB allow (MemoryError)")
    call(py, "print('x' * 50_000)")
    [text] = returned(py, media_log, before + 2)
    assert text == "stdout:\n" + "x" * 20_000 + "\n[stdout cut: 30,001 more characters not shown]"


def test_stop_ends_a_run_and_its_sandbox(py, media_log):
    # On the approved tool, whose time limit is the default 30 s (run_python's 6 s could end the
    # run first on a slow machine).
    before = answers(py)
    ChatPage(py).send("call run_checked_python " + json.dumps({"code": "while True:\n    pass"}))
    card = py.locator(".pyclient-tool[data-tool='run_checked_python']").last
    expect(card).to_have_attribute("data-status", "awaiting_approval", timeout=TIMEOUT)
    card.locator(".pyclient-approve").click()
    expect(card).to_have_attribute("data-status", "executing", timeout=TIMEOUT)
    sandbox = py.locator('iframe[data-pyclient-sandbox^="run_checked_python/"]')
    expect(sandbox).to_have_count(1)
    py.locator(".pyclient-stop").click()
    expect(sandbox).to_have_count(0)
    expect(py.locator(".pyclient-chat")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)
    assert answers(py) == before
    # The next message tells the model its call was stopped.
    ChatPage(py).send("and now?")
    expect(py.locator(".pyclient-assistant").last).to_have_text("Tool returned: Tool call cancelled: stopped by the user",
                                                                timeout=TIMEOUT)


def test_after_a_reload_the_first_call_is_told_its_state_is_gone(py, media_log, python_page):
    # Last in the module: it reloads the shared page (its thread is kept in IndexedDB).
    before = answers(py)
    call(py, "remembered = 'yes'\nremembered")
    [text] = returned(py, media_log, before + 1)
    assert text.endswith("result: 'yes'")
    py.evaluate("window.t.saved()")
    python_page.reload(ready=READY)
    before = answers(py)
    call(py, "remembered")
    [text] = returned(py, media_log, before + 1)
    assert text.startswith("[A new Python session: Variables, imports and files from earlier calls are gone")
    assert text.endswith("NameError: name 'remembered' is not defined")
