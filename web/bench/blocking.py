"""Bench page of bench/blocking.py: two chats, run on the page's main thread or in a PyScript worker.

The same file serves web/bench/blocking.html (main thread) and web/bench/blocking_worker.html
(`<script type="py" worker>`, cross-origin isolated). `#chat` talks to the dev server's demo
agent with one page tool, `set_heading` (a tool round trip: "Set the heading to Welcome");
`#long` to `/bench/long?n=N` (bench/streams.py: one answer of N text deltas), N from the
page's `?n=` (default 10000). `<html data-pyclient="ready">` once both chats exist.

In a worker, a streaming answer's bubble can fail (pyclient at b834034): after
`live.innerHTML = html` on a mirror element the mirror knows no children, and the next
mid-stream render that only adds text to the last paragraph reads
`live.lastElementChild.lastChild` (`Bubble._show_live`): `AttributeError: 'NoneType' object has
no attribute 'lastChild'`, raised in the chat's frame, which then stays "running". The page
works around it (worker only; `?fix=0` turns that off): when the mirror knows no child there,
the live block is rewritten whole, as the code does for any other change;
`data-live-rewrites` on `<html>` counts how often that happened.

With `?profile=1` the page profiles its Python (`cProfile`) between `data-bench-profile="start"`
and `"dump"` on `<html>` (polled twice a second), then writes the functions with the most
cumulative time into `data-bench-profile-out` (`bench/blocking.py --python-profile`).

`data-bench-python` on `<html>`: when this script started, when its imports were done and when
it set "ready" (epoch ms, `performance.timeOrigin + performance.now()` of the thread it runs in),
for the boot's phases.
"""

import js

started = js.performance.timeOrigin + js.performance.now()

from pyscript import RUNNING_IN_WORKER, document, window  # noqa: E402

from pyclient import Agent, client_tool  # noqa: E402
from pyclient.browser import Chat  # noqa: E402
from pyclient.browser._widgets._bubbles import Bubble  # noqa: E402


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    document.querySelector("h1").textContent = text
    return f"the heading is now {text}"


def query(name, default):
    for pair in str(window.location.search).lstrip("?").split("&"):
        key, _, value = pair.partition("=")
        if key == name:
            return value
    return default


def work_around_live_block():
    show_live = Bubble._show_live
    rewrites = 0

    def _show_live(self, html):
        nonlocal rewrites
        if self._live_html and self._live.lastElementChild is None:
            self._live_html = ""  # shown by innerHTML, unknown to the mirror: rewrite it whole
            rewrites += 1
            document.documentElement.dataset.liveRewrites = str(rewrites)
        show_live(self, html)

    Bubble._show_live = _show_live


imported = js.performance.timeOrigin + js.performance.now()
if RUNNING_IN_WORKER and query("fix", "1") != "0":
    work_around_live_block()
deltas = int(query("n", "10000"))
agent = Agent("blocking", url="/agent", client_tools=[set_heading])
chat = Chat(agent.thread("#chat"), document.querySelector("#chat"))
long_agent = Agent("long", url=f"/bench/long?n={deltas}")
long_chat = Chat(long_agent.thread("#long"), document.querySelector("#long"))


def profile_on_request():
    import cProfile
    import io
    import pstats

    from pyodide.ffi import create_proxy

    profiler = cProfile.Profile()
    root = document.documentElement

    def poll():
        asked = root.getAttribute("data-bench-profile")
        if asked == "start":
            root.dataset.benchProfile = "on"
            profiler.enable()
        elif asked == "dump":
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
            root.dataset.benchProfileOut = out.getvalue()
            root.dataset.benchProfile = "done"

    js.setInterval(create_proxy(poll), 500)


if query("profile", "0") == "1":
    profile_on_request()
document.documentElement.dataset.benchPython = f"{started},{imported},{js.performance.timeOrigin + js.performance.now()}"
document.documentElement.dataset.pyclient = "ready"
