"""The chat path of `bench/chat.py`'s parallel row on CPython: what the Chat costs, and where.

A real `pyclient.browser.Chat` on the worker's mirror document (`use_document`), with a stand-in
`js` for the page's timers and frames: `requestAnimationFrame` runs its callbacks every
`--frame-ms` on the event loop, as a page's frames do. A thread with a page tool gets the
bench's stream of N parallel calls (`bench/streams.py`), then its follow-up text; the chat
path runs until `send()` returned and the chat's list shows every result and the text, as in
the browser. Times the thread alone and with the chat (best of `--runs`); with `--profile`,
profiles one chat-path run (cProfile, the top functions by own and cumulative time); with
`--dom`, counts the chat's reads and writes of node properties (on the page's main thread each
is a call from Python into JS), by the line that makes them. The mirror's costs stand in for
the page's DOM calls: read the shape of the profile (what repeats per card, per frame), not its
milliseconds; cyclic GC takes much of CPython's time here (`--no-gc` leaves it out).

    python bench/chat_profile.py                     # 1,000 calls, best of 3
    python bench/chat_profile.py --n 1000 --profile  # and where the chat's time goes
    python bench/chat_profile.py --runs 1 --dom      # the DOM properties each card reads and writes
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import cProfile
import gc
import pstats
import sys
import time
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class _Js(types.ModuleType):
    """The page's `js` as the chat's frames and timers use it, on the running event loop."""

    frame_ms = 16.0

    def __init__(self) -> None:
        super().__init__("js")
        self.frames: list[Any] = []
        self.handle: Any = None
        self.frames_run = 0

    def requestAnimationFrame(self, callback: Any) -> None:  # noqa: N802 (the DOM's name)
        self.frames.append(callback)
        if self.handle is None:
            self.handle = asyncio.get_running_loop().call_later(self.frame_ms / 1000, self._frame)

    def _frame(self) -> None:
        self.handle = None
        callbacks, self.frames = self.frames, []
        self.frames_run += 1
        for callback in callbacks:
            callback(time.perf_counter() * 1000)

    def setTimeout(self, callback: Any, ms: float = 0) -> None:  # noqa: N802
        asyncio.get_running_loop().call_later(ms / 1000, callback)


JS = _Js()
sys.modules.setdefault("js", JS)
_ffi = types.ModuleType("pyodide.ffi")
_ffi.to_js = lambda value, **_: value  # type: ignore[attr-defined]
_ffi.create_once_callable = lambda fn: fn  # type: ignore[attr-defined]
_ffi.create_proxy = lambda fn: fn  # type: ignore[attr-defined]
sys.modules.setdefault("pyodide", types.ModuleType("pyodide"))
sys.modules.setdefault("pyodide.ffi", _ffi)

from bench.streams import follow_up_text, mark_result, stream  # noqa: E402
from pyclient import Agent, Transport, client_tool  # noqa: E402
from pyclient.browser._page import _nodes, _page_window  # noqa: E402
from pyclient.browser._page._document import use_document  # noqa: E402
from pyclient.browser._page._mirror import MirrorDocument  # noqa: E402

_nodes.js = JS  # type: ignore[attr-defined]  # on CPython these modules import no `js`
_nodes.create_once_callable = _ffi.create_once_callable  # type: ignore[attr-defined]
_page_window.js = JS  # type: ignore[attr-defined]
# A page that shows the chat and has its stylesheet already.
JS.document = types.SimpleNamespace(visibilityState="visible", getElementById=lambda ident: True)  # type: ignore[attr-defined]


@client_tool
def bench_mark(index: int) -> str:
    """Mark one of many parallel calls done."""
    return mark_result(index)


class _Bench(Transport):
    """The bench server's parallel route: N calls, then (after their results) the follow-up text."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.count = 0

    async def stream(self, request: Any, signal: Any) -> Any:
        self.count += 1
        await asyncio.sleep(0.02)  # the round trip: the page draws a frame meanwhile (the user's message)
        yield stream("parallel", follow_up=self.count % 2 == 0, n=self.n)


def _document() -> MirrorDocument:
    # The page applies each batch; here it is dropped once counted (its cost is the mirror's).
    return MirrorDocument(lambda batch: None, schedule=_soon)


def _soon(flush: Any) -> None:
    try:
        asyncio.get_running_loop().call_soon(flush)
    except RuntimeError:  # a node freed after the loop closed
        flush()


async def _sample(n: int, chat: bool) -> float:
    from pyclient.browser import Chat

    use_document(_document())
    agent = Agent("bench", url="http://127.0.0.1/bench", client_tools=[bench_mark], transport=_Bench(n))
    thread = agent.thread()
    view = Chat(thread, _document_root()) if chat else None
    started = time.perf_counter()
    await thread.send("bench")
    if view is not None:
        final = follow_up_text("parallel", n=n)
        # Until the list shows the text and every result (cards come over frames).
        while not _shown(view, n, final):
            await asyncio.sleep(0.001)
    elapsed = time.perf_counter() - started
    assert thread.run_status == "idle", thread.error
    if view is not None:
        view.dispose()
    thread.close()
    return elapsed * 1000


def _document_root() -> Any:
    from pyclient.browser._page._document import page_document

    return page_document().createElement("section")


def _shown(view: Any, n: int, final: str) -> bool:
    if view._messages.pending:  # cards left for the next frames: a cheap check first
        return False
    # The answer's Markdown goes to the page as HTML, which the mirror does not parse: its
    # bubble's text is read instead (the browser's bench reads the element's).
    items = view.element.querySelector(".pyclient-messages").children
    bubbles = view._messages.bubbles()
    if not items or str(items[-1].dataset.widget) != "m:bench-parallel-answer" or not bubbles:
        return False
    if bubbles.get("bench-parallel-answer") is None or bubbles["bench-parallel-answer"].text != final:
        return False
    return sum(1 for item in items if item.dataset.status == "completed") == n


def _count_dom(counts: collections.Counter[str]) -> None:
    """Count in `counts` each read and write of a public property of a mirror node (or of its
    dataset, classList, style) made outside the mirror, by "file:line name"."""
    from pyclient.browser._page._mirror import _element, _node, _views

    def counted(cls: type, slot: str, verb: str) -> None:
        original = getattr(cls, slot)

        def access(self: Any, name: str, *value: Any) -> Any:
            if not name.startswith("_"):
                caller = sys._getframe(1).f_code
                if "/_mirror/" not in caller.co_filename:
                    line = sys._getframe(1).f_lineno
                    counts[f"{Path(caller.co_filename).name}:{line} {caller.co_name} {verb} {name}"] += 1
            return original(self, name, *value)

        setattr(cls, slot, access)

    for cls in (_node.MirrorNode, _views.Dataset, _views.ClassList, _views.Style):
        counted(cls, "__getattribute__", "get")
    for cls in (_node.MirrorNode, _element.MirrorElement, _node.MirrorText, _views.Dataset, _views.ClassList,
                _views.Style):
        if "__setattr__" in vars(cls):
            counted(cls, "__setattr__", "set")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="parallel calls (default 1,000)")
    parser.add_argument("--runs", type=int, default=3, help="samples per path (the best is shown)")
    parser.add_argument("--frame-ms", type=float, default=16.0, help="ms between animation frames")
    parser.add_argument("--profile", action="store_true", help="profile one chat-path run")
    parser.add_argument("--top", type=int, default=25, help="functions shown per table")
    parser.add_argument("--dom", action="store_true", help="count the DOM reads and writes of one chat-path run")
    parser.add_argument("--no-gc", action="store_true", help="no cyclic GC while timing and profiling")
    args = parser.parse_args(argv)
    JS.frame_ms = args.frame_ms
    if args.no_gc:
        gc.disable()

    async def run() -> None:
        await _sample(max(1, args.n // 10), True)  # imports, at a tenth of the size
        times: dict[str, list[float]] = {"thread": [], "chat": []}
        for _ in range(args.runs):
            for path in times:
                times[path].append(await _sample(args.n, path == "chat"))
        thread, chat = min(times["thread"]), min(times["chat"])
        print(f"{args.n:,} parallel calls, best of {args.runs}: thread {thread:.1f} ms, chat {chat:.1f} ms, "
              f"chat/thread {chat / thread:.2f}×, frames {JS.frames_run}")
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            await _sample(args.n, True)
            profile.disable()
            stats = pstats.Stats(profile)
            stats.sort_stats("tottime").print_stats(args.top)
            stats.sort_stats("cumulative").print_stats(args.top)
        if args.dom:
            counts: collections.Counter[str] = collections.Counter()
            _count_dom(counts)
            await _sample(args.n, True)
            shown = {key: count for key, count in counts.items() if not key.startswith(Path(__file__).name)}
            print(f"DOM reads and writes of the chat: {sum(shown.values()):,} "
                  f"({sum(shown.values()) / args.n:.1f} a call)")
            for key, count in collections.Counter(shown).most_common(args.top):
                print(f"{count:8,}  {key}")

    asyncio.run(run())
    return 0


if __name__ == "__main__":
    sys.exit(main())
