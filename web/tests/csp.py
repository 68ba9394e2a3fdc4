"""Test page for a strict Content-Security-Policy: a `Chat` on `POST /agent` (the test's
`scripted_agent`), served by tests/e2e/test_csp.py with the policy docs/deployment.md documents.

Pages: csp.html links the chat's stylesheet itself (`/pyclient/chat.css`); csp_nonce.html does
not, and its scripts carry the nonce "page-nonce". Query: `stylesheet=<url>` (the Chat's
`stylesheet=`), `nonce=<nonce>` (its `nonce=`). Tools: `set_heading(text)` writes the page's
`<h1>`; `red_square()` returns a PNG made here (a thumbnail from a `blob:` URL in its card).
Runs on the main thread and in a worker: it reaches the page through `pyscript.window` and
`pyscript.document`, never the `js` module.
"""

import struct
import zlib

from pyscript import document, window

from pyclient import Agent, Image, client_tool
from pyclient.browser import Chat, log_to_console

log_to_console()
params = window.URLSearchParams.new(window.location.search)


def png(width, height, rgb):
    """A PNG of one colour, written in Python."""

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes(rgb) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    document.querySelector("h1").textContent = text
    return f"heading is now {text}"


@client_tool
def red_square() -> Image:
    """Draw a red square."""
    return Image(png(24, 24, (220, 30, 30)), filename="red.png")


agent = Agent("csp", url="/agent", client_tools=[set_heading, red_square])
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"), title="Strict CSP",
            stylesheet=params.get("stylesheet") or None, nonce=params.get("nonce") or None)
document.documentElement.dataset.pyclient = "ready"
