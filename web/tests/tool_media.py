"""Test page for files in tool results: a `Chat` on the media agent (`/agent/media`, a pydantic-ai
agent whose model records the files it receives), driven by tests/e2e/test_tool_media.py.

Query: `agent=<path>` (another endpoint: `/agent` on the plugin's site is the test's
`scripted_agent`), `thread=<id>` with `store=1` (the thread kept in IndexedDB). Tools:
`snapshot_chart()` returns a PNG made in Python (its base64 in `window.lastPng`),
`export_csv()` a JS `Blob`, `tainted_canvas()` the `#tainted` canvas element, `capture_canvas` is `canvas_tool("#sketch")` (drawn below),
`capture_tainted` and `capture_gone` are `canvas_tool`s on the other two canvases, and
`request_file` is `file_request_tool(accept="image/*,.pdf", max_bytes=200_000)`.
`window.t.run(name)` runs a tool's handler directly and returns JSON (`content`, `error`,
`media` as `[mime, size, filename]`); `window.t.saved()` waits until the thread is saved.
"""

import asyncio
import base64
import json
import struct
import zlib

import js
from pyodide.ffi import create_proxy, to_js
from pyscript import document

from pyclient import Agent, Attachment, Image, client_tool
from pyclient.browser import Chat, log_to_console
from pyclient.browser.toolkit import canvas_tool, file_request_tool

log_to_console()
params = js.URLSearchParams.new(js.location.search)


def png(width, height, rgb):
    """A PNG of one colour, written here in Python (no canvas involved)."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@client_tool
def snapshot_chart() -> Image:
    """Take a picture of the chart."""
    data = png(12, 8, (30, 120, 200))
    js.window.lastPng = base64.b64encode(data).decode()
    return Image(data, filename="chart.png")


@client_tool
def export_csv() -> Attachment:
    """Export the table as CSV."""
    return js.Blob.new(to_js(["a,b\n1,2\n"]), to_js({"type": "text/csv"}, dict_converter=js.Object.fromEntries))


@client_tool
def tainted_canvas() -> Image:
    """Return the #tainted canvas itself (read by pyclient, not by canvas_tool)."""
    return document.querySelector("#tainted")


# The drawing the model is shown: a red left half, a blue right half, a white dot in the middle.
sketch = document.querySelector("#sketch")
pen = sketch.getContext("2d")
pen.fillStyle = "#ff0000"
pen.fillRect(0, 0, 80, 100)
pen.fillStyle = "#0000ff"
pen.fillRect(80, 0, 80, 100)
pen.fillStyle = "#ffffff"
pen.beginPath()
pen.arc(80, 50, 10, 0, 6.3)
pen.fill()

capture_canvas = canvas_tool("#sketch", description="See the sketch on the page.")
capture_tainted = canvas_tool("#tainted", name="capture_tainted")
capture_gone = canvas_tool(document.querySelector("#gone"), name="capture_gone")
request_file = file_request_tool(accept="image/*,.pdf", max_bytes=200_000)
TOOLS = [snapshot_chart, export_csv, tainted_canvas, capture_canvas, capture_tainted, capture_gone, request_file]

agent = Agent("media", url=params.get("agent") or "/agent/media", client_tools=TOOLS)
thread = agent.thread("#chat", thread_id=params.get("thread") or None, store=True if params.get("store") else None)
chat = Chat(thread, document.querySelector("#chat"), placeholder="Say something")


async def run(name):
    tool = next(tool for tool in TOOLS if tool.name == name)
    result = await tool.execute({}, read=agent.platform.read_media)
    return json.dumps({"content": result.content, "error": result.error,
                       "media": [[m.mime_type, m.size, m.filename] for m in result.media]})


async def saved():
    await thread.saved()


def remove_gone():
    document.querySelector("#gone").remove()


js.window.t = to_js({"run": create_proxy(run), "saved": create_proxy(saved), "remove_gone": create_proxy(remove_gone)},
                    dict_converter=js.Object.fromEntries)


async def main():
    if thread.store is not None:
        await thread.restore()
    document.documentElement.dataset.pyclient = "ready"


asyncio.ensure_future(main())
