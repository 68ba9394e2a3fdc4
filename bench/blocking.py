"""Main-thread blocking: pyclient's chat with its Python in a PyScript worker, on the main thread, and bare PyScript.

Issue 24 moves pyclient's Python off the page's main thread. This measures what the page's main
thread is left with, in headless Chromium, for four pages served by one cross-origin isolated
dev server (COOP/COEP, which worker pages need) in interleaved rounds (`--runs`, medians):

| page | what |
| --- | --- |
| `worker` | web/bench/blocking_worker.html: two chats, their Python in `<script type="py" worker>` |
| `main` | web/bench/blocking.html: the same page without `worker` |
| `bare` | web/bench/bare.html: PyScript importing pydantic, no pyclient (bench/boot.py's floor) |
| `bare-worker` | web/bench/bare_worker.html: the same in a worker (what PyScript's worker mode costs the page) |

web/bench/probe.js is installed before any of the page's scripts (Playwright's
`add_init_script`): a `PerformanceObserver({type: "longtask", buffered: true})`, another for
long animation frames (what the long tasks were: the scripts that ran, the layout they forced),
and a 10 ms `setInterval` ticker, whose lateness is what a page script waits for the main
thread. Each sample is a fresh persistent profile: a cold load (nothing cached) and a reload
(disk cache), then, on the chat pages, two sends through the chats with Playwright's trusted
clicks:

- (a) navigation → ready: the page usable (`data-pyclient="ready"`, each chat's input and
  Send enabled), read by the ticker;
- (b) one tool round trip: "Set the heading to Welcome" in `#chat` (the dev server's demo
  model calls the page tool `set_heading`, then answers with its result), from the Send
  click's event time until the chat is idle showing the answer and the next frame is drawn
  (the heading is checked);
- (c) one answer of N text deltas (`/bench/long?n=N`, bench/streams.py, N = `--deltas`,
  default 10,000) in `#long`, from the click until the chat is idle showing the whole text
  (and the next frame).

The boot is cut into phases by marks the page's script writes (`data-bench-python`): PyScript
and Pyodide until the script runs, its imports, the rest of it, and its end → the page usable.

Per window: total blocking time (TBT: the sum over long tasks of duration − 50 ms), the longest
task, and the ticker's worst lateness. The report prints the figures side by side, the worker /
main ratios and the targets: worker TBT nav → ready ≤ 100 ms and no task over 100 ms; worker
TBT ≤ 50 ms during the round trip and during the N-delta answer; worker time to ready ≤ 1.15×
main; worker answer time ≤ 1.5× main. A request that leaves 127.0.0.1 (recorded, and not
resolvable: Chromium maps every other host to nothing) or an uncaught page error makes the
command exit 1; a send that does not end as it should raises `BenchError`.

    python bench/blocking.py                       # 3 rounds, 10,000 deltas
    python bench/blocking.py --runs 1 --deltas 200  # quick look
    python bench/blocking.py --trace worker         # also a traced sample: what the long tasks did

`run_blocking(playwright, base_url)` and `report_blocking(results)` are what `bench/run.py` and
tests/e2e/test_bench_smoke.py use.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.chat import BenchError, count_label  # noqa: E402
from bench.streams import long_text  # noqa: E402
from devserver.chromium import launch_args  # noqa: E402

PROBE = Path(__file__).resolve().parent.parent / "web" / "bench" / "probe.js"
PAGES = {
    "worker": "/bench/blocking_worker.html",
    "main": "/bench/blocking.html",
    "bare": "/bench/bare.html",
    "bare-worker": "/bench/bare_worker.html",
}
LABELS = {
    "worker": "pyclient chat, worker",
    "main": "pyclient chat, main thread",
    "bare": "bare PyScript + pydantic",
    "bare-worker": "bare PyScript + pydantic, worker",
}
CHAT_PAGES = ("worker", "main")
TARGETS = {"boot tbt": 100.0, "boot longest": 100.0, "trip tbt": 50.0, "answer tbt": 50.0,
           "ready ratio": 1.15, "answer ratio": 1.5}
"""Worker mode: TBT nav → ready ≤ 100 ms, longest task then ≤ 100 ms, TBT ≤ 50 ms during a round
trip and during the N-delta answer, time to ready ≤ 1.15× main, answer time ≤ 1.5× main."""
TRIP_TEXT = "Set the heading to Welcome"
TRIP_ANSWER = 'set_heading returned: "the heading is now Welcome"'
READY_TIMEOUT_MS = 120_000
LOCAL_HOSTS = {"127.0.0.1"}
UNCAUGHT = ("Uncaught", "PythonError", "Task exception was never retrieved", "was never awaited",
            "a thread listener raised")
# Nothing but 127.0.0.1 resolves: a request for another host fails at once (and is recorded).
ISOLATE_ARGS = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


@dataclass(frozen=True)
class Window:
    """The main thread during one window: long tasks, their TBT, the longest, the ticker's worst lateness (ms)."""

    tasks: int
    tbt: float
    longest: float
    lateness: float
    list: tuple[tuple[float, float], ...] = ()  # (start, duration) of each long task
    frames: tuple[dict[str, Any], ...] = ()  # the long animation frames (web/bench/probe.js)


@dataclass
class Sample:
    """One page, one fresh profile: cold and warm boot, and (chat pages) the two sends."""

    ready_cold: float
    ready_warm: float
    boot_cold: Window
    boot_warm: Window
    # The page's Python script: start, imports done, end (ms since navigation).
    script_cold: tuple[float, float, float] = (0.0, 0.0, 0.0)
    script_warm: tuple[float, float, float] = (0.0, 0.0, 0.0)
    browser: str = ""  # Chromium's version
    # Times web/bench/blocking.py's workaround rewrote a streaming bubble's live block whole (worker
    # mode: the mirror knows no children after `innerHTML`; see that file).
    live_rewrites: int = 0
    trip_ms: float | None = None
    trip: Window | None = None
    answer_ms: float | None = None
    answer: Window | None = None
    traces: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # part → its long tasks in a trace


@dataclass
class BlockingResults:
    runs: int
    deltas: int
    samples: dict[str, list[Sample]] = field(default_factory=dict)
    browser: str = ""
    load: tuple[float, float] | None = None  # the 1-minute load average at the start and at the end

    def median(self, page: str, get: Callable[[Sample], float | None]) -> float | None:
        values = [v for v in map(get, self.samples.get(page, [])) if v is not None]
        return statistics.median(values) if values else None


class Watch:
    """Records requests that leave 127.0.0.1 and uncaught errors of a browser context's pages
    (no routing: Playwright's routing turns the HTTP cache off, and the warm loads need it)."""

    def __init__(self) -> None:
        self.outside: list[str] = []
        self.errors: list[str] = []

    def attach(self, context: Any) -> None:
        context.on("request", self._request)
        for page in context.pages:
            self._page(page)
        context.on("page", self._page)

    def _request(self, request: Any) -> None:
        url = request.url
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname not in LOCAL_HOSTS:
            self.outside.append(url)

    def _page(self, page: Any) -> None:
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", lambda m: self.errors.append(m.text)
                if m.type == "error" and any(u in m.text for u in UNCAUGHT) else None)

    def check_page(self, page: Any) -> None:
        """Record PyScript's error boxes (a script of the page failed)."""
        self.errors += page.locator(".py-error").all_text_contents()


def _window(page: Any, start: float, end: float) -> Window:
    w = page.evaluate("([a, b]) => window.__probe.window(a, b)", [start, end])
    return Window(w["tasks"], w["tbt"], w["longest"], w["lateness"], tuple(map(tuple, w["list"])), tuple(w["frames"]))


def _wait_ready(page: Any, name: str, timeout_ms: int) -> float:
    try:
        page.wait_for_function("window.__probe && window.__probe.ready !== null", timeout=timeout_ms, polling=100)
    except Exception as exc:
        boxes = page.locator(".py-error").all_text_contents()
        raise BenchError(f"{name}: not ready within {timeout_ms} ms {boxes[:1]}") from exc
    if error := page.evaluate("window.__probe.error || window.__probe.frameError || null"):
        raise BenchError(f"{name}: no long-task or long-animation-frame observer: {error}")
    worker = "worker" in name
    if page.evaluate("crossOriginIsolated") is not True:
        raise BenchError(f"{name}: the page is not cross-origin isolated")
    if name in CHAT_PAGES and worker:
        # The worker's chat renders through renderer.js (pyclient.js loads it on every page).
        if page.evaluate("typeof globalThis.pyclientRenderer === 'undefined'"):
            raise BenchError(f"{name}: the renderer of worker mode is missing")
    return float(page.evaluate("window.__probe.ready"))


SCRIPT = """() => (document.documentElement.dataset.benchPython || "").split(",")
  .map((at) => Number(at) - performance.timeOrigin)"""


def _script(page: Any, name: str) -> tuple[float, float, float]:
    """When the page's Python script started, had imported what it needs and ended (ms since
    navigation; `data-bench-python`)."""
    marks = page.evaluate(SCRIPT)
    if len(marks) != 3 or not (0 < marks[0] <= marks[1] <= marks[2]):
        raise BenchError(f"{name}: no `data-bench-python` times ({marks})")
    return float(marks[0]), float(marks[1]), float(marks[2])


def _browser_version(page: Any) -> str:
    """Chromium's full version (the user agent's is reduced to 156.0.0.0)."""
    cdp = page.context.new_cdp_session(page)
    try:
        return str(cdp.send("Browser.getVersion")["product"]).rpartition("/")[2]
    finally:
        cdp.detach()


def _through_chat(page: Any, selector: str, text: str, needles: list[str], timeout_ms: int) -> tuple[float, Window]:
    """Type `text` into the chat in `selector`, click Send; (click → shown ms, the window's figures)."""
    page.evaluate("""([selector, needles]) => {
      window.__shownAt = undefined;
      window.__probe.waitShown(selector, needles).then((at) => { window.__shownAt = at; });
    }""", [selector, needles])
    clicks = page.evaluate("window.__probe.clicks.length")
    page.fill(f"{selector} input[name=message]", text)
    page.click(f"{selector} .pyclient-send")
    try:
        page.wait_for_function("window.__shownAt !== undefined", timeout=timeout_ms, polling=100)
    except Exception as exc:
        status = page.get_attribute(f"{selector} .pyclient-chat", "data-status")
        raise BenchError(f"{selector}: {text!r} was not answered within {timeout_ms} ms (status {status!r})") from exc
    all_clicks = page.evaluate("window.__probe.clicks")
    if len(all_clicks) != clicks + 1:
        raise BenchError(f"{selector}: {len(all_clicks) - clicks} clicks on Send recorded, not 1")
    start, end = float(all_clicks[-1]), float(page.evaluate("window.__shownAt"))
    return end - start, _window(page, start, end)


TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink", "loading",
                    "disabled-by-default-v8.gc"]


def _trace(page: Any, action: Callable[[], Any]) -> list[dict[str, Any]]:
    """The browser's trace events (CDP `Tracing`, the DevTools timeline's categories) while `action` runs."""
    cdp = page.context.new_cdp_session(page)
    events: list[dict[str, Any]] = []
    done: list[bool] = []
    cdp.on("Tracing.dataCollected", lambda message: events.extend(message["value"]))
    cdp.on("Tracing.tracingComplete", lambda message: done.append(True))
    cdp.send("Tracing.start", {"traceConfig": {"includedCategories": TRACE_CATEGORIES}, "transferMode": "ReportEvents"})
    try:
        action()
    finally:
        cdp.send("Tracing.end")
        deadline = time.monotonic() + 30
        while not done and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        cdp.detach()
    return events


def long_task_breakdown(events: list[dict[str, Any]], over_ms: float = 50,
                        thread: str = "CrRendererMain") -> list[dict[str, Any]]:
    """The tasks of the renderers' main threads (`CrRendererMain`, or another `thread`) longer than
    `over_ms` in a trace: each with its wall time (`ms`), its thread's CPU time (`cpu`: less when
    the machine's other processes took the core) and its exclusive time by trace event (what it
    did: "FunctionCall", "Layout", "Paint", "V8.GC_…", …), with the scripts it called
    ("FunctionCall" url:line)."""
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    out = []
    for key in (k for k, name in names.items() if name == thread):
        complete = sorted((e for e in events if (e["pid"], e["tid"]) == key and e.get("ph") == "X"),
                          key=lambda e: (e["ts"], -e.get("dur", 0)))
        for task in complete:
            if task["name"] != "RunTask" or task.get("dur", 0) < over_ms * 1000:
                continue
            start, end = task["ts"], task["ts"] + task["dur"]
            inner = [e for e in complete if start <= e["ts"] < end and e is not task]
            exclusive: dict[str, float] = {"RunTask": task["dur"]}  # the task's own: in no traced event
            stack: list[dict[str, Any]] = [task]
            scripts = []
            for e in inner:
                while len(stack) > 1 and e["ts"] >= stack[-1]["ts"] + stack[-1].get("dur", 0):
                    stack.pop()
                if stack:
                    exclusive[stack[-1]["name"]] = exclusive.get(stack[-1]["name"], 0) - e.get("dur", 0)
                exclusive[e["name"]] = exclusive.get(e["name"], 0) + e.get("dur", 0)
                stack.append(e)
                data = e.get("args", {}).get("data", {})
                if e["name"] in ("FunctionCall", "EvaluateScript", "v8.callFunction") and e.get("dur", 0) >= 5000:
                    where = str(data.get("url") or "(no URL)").rsplit("/", 1)[-1]
                    scripts.append(f"{data.get('functionName') or ''} {where}:{data.get('lineNumber', '')} "
                                   f"{e['dur'] / 1000:.0f} ms".strip())
            out.append({"ms": task["dur"] / 1000, "cpu": task.get("tdur", 0) / 1000, "pid": key[0],
                        "what": sorted(((name, us / 1000) for name, us in exclusive.items() if us >= 1000),
                                       key=lambda item: (-item[1], item[0])),
                        "scripts": scripts[:4]})
    return out


def sample(playwright: Any, base_url: str, name: str, *, deltas: int, watch: Watch,
           timeout_ms: int = READY_TIMEOUT_MS, trace: bool = False) -> Sample:
    """One fresh profile on page `name`: cold load, warm reload, and on the chat pages the round
    trip and the N-delta answer. With `trace`, each part is traced too (CDP `Tracing`) and
    `Sample.traces` holds its long tasks' breakdown (`long_task_breakdown`)."""
    url = base_url.rstrip("/") + PAGES[name] + (f"?n={deltas}" if name in CHAT_PAGES else "")
    args = launch_args()
    args["args"] = [*args["args"], *ISOLATE_ARGS]
    traces: dict[str, list[dict[str, Any]]] = {}

    def part(label: str, action: Callable[[], Any]) -> Any:
        if not trace:
            return action()
        out: list[Any] = []
        events = _trace(page, lambda: out.append(action()))
        traces[label] = long_task_breakdown(events)
        traces[label + ", worker thread"] = long_task_breakdown(events, thread="DedicatedWorker thread")
        return out[0]

    with tempfile.TemporaryDirectory() as directory:
        context = playwright.chromium.launch_persistent_context(directory, **args)
        try:
            watch.attach(context)
            context.add_init_script(path=PROBE)
            page = context.pages[0] if context.pages else context.new_page()
            ready_cold = part("cold nav → ready", lambda: (page.goto(url), _wait_ready(page, name, timeout_ms))[1])
            boot_cold, script_cold = _window(page, 0, ready_cold), _script(page, name)
            ready_warm = part("warm nav → ready", lambda: (page.reload(), _wait_ready(page, name, timeout_ms))[1])
            boot_warm, script_warm = _window(page, 0, ready_warm), _script(page, name)
            result = Sample(ready_cold, ready_warm, boot_cold, boot_warm, script_cold, script_warm, traces=traces,
                            browser=_browser_version(page))
            if name in CHAT_PAGES:
                page.evaluate("() => new Promise((resolve) => setTimeout(resolve, 500))")  # idle-time work after ready
                result.trip_ms, result.trip = part(
                    "round trip", lambda: _through_chat(page, "#chat", TRIP_TEXT, [TRIP_ANSWER], timeout_ms))
                if page.text_content("h1") != "Welcome":
                    raise BenchError(f"{name}: the round trip left the heading {page.text_content('h1')!r}")
                result.answer_ms, result.answer = part(
                    "answer", lambda: _through_chat(page, "#long", "bench", [long_text(deltas)], timeout_ms))
                result.live_rewrites = int(page.get_attribute("html", "data-live-rewrites") or 0)
            watch.check_page(page)
        finally:
            context.close()
    return result


def run_blocking(playwright: Any, base_url: str, *, runs: int = 3, deltas: int = 10_000,
                 pages: Sequence[str] = tuple(PAGES), warm_up: bool = True, watch: Watch | None = None,
                 timeout_ms: int = READY_TIMEOUT_MS, log: Callable[[str], None] = lambda line: None) -> BlockingResults:
    """`runs` interleaved rounds of every page in `pages` (the order rotating each round), after one
    unrecorded sample of the worker page (the server's gzip cache, the OS's file cache).

    `base_url`: a dev server with COOP/COEP (`create_app(coi=True)`) and `bench.streams.routes()`."""
    watch = watch if watch is not None else Watch()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    results = BlockingResults(runs, deltas)
    if warm_up:
        sample(playwright, base_url, "worker", deltas=deltas, watch=watch, timeout_ms=timeout_ms)
    order = list(pages)
    for run in range(runs):
        shift = run % len(order)
        for name in order[shift:] + order[:shift]:
            s = sample(playwright, base_url, name, deltas=deltas, watch=watch, timeout_ms=timeout_ms)
            results.samples.setdefault(name, []).append(s)
            results.browser = results.browser or s.browser
            line = (f"blocking {run + 1}/{runs} {name:<11}: ready {s.ready_cold:6.0f}/{s.ready_warm:6.0f} ms, "
                    f"TBT {s.boot_cold.tbt:5.0f}/{s.boot_warm.tbt:5.0f} ms")
            if s.trip is not None and s.answer is not None:
                line += (f"; trip {s.trip_ms:5.0f} ms TBT {s.trip.tbt:4.0f}; answer {s.answer_ms:5.0f} ms "
                         f"TBT {s.answer.tbt:4.0f}, longest {s.answer.longest:4.0f}")
            log(line)
    if load is not None:
        results.load = (load, os.getloadavg()[0])
    return results


def _ms(value: float | None, width: int = 7) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width},.0f}"


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report_blocking(results: BlockingResults) -> str:
    """The tables (medians), the worker / main ratios and the targets."""
    r = results
    n = count_label(r.deltas)
    pages = [p for p in PAGES if p in r.samples]
    med = r.median
    lines = [f"main-thread blocking: median of {r.runs} interleaved run(s), headless Chromium {r.browser}, "
             "cross-origin isolated dev server on 127.0.0.1" + (f", load average {r.load[0]:.1f} → {r.load[1]:.1f}"
                                                                 if r.load else ""), "",
             f"main thread, ms: TBT (Σ long task − 50) / longest task{'':<14}"
             f"{'cold nav → ready':>18}{'warm nav → ready':>18}{'round trip':>16}{f'{n}-delta answer':>18}"]

    def pair(get_window: Callable[[Sample], Window | None], what: str) -> Callable[[Sample], float | None]:
        return lambda s: None if (w := get_window(s)) is None else getattr(w, what)

    windows: list[Callable[[Sample], Window | None]] = [
        lambda s: s.boot_cold, lambda s: s.boot_warm, lambda s: s.trip, lambda s: s.answer]
    widths = (18, 18, 16, 18)
    for page in pages:
        cells = []
        for get, width in zip(windows, widths):
            tbt, longest = med(page, pair(get, "tbt")), med(page, pair(get, "longest"))
            cell = "—" if tbt is None else f"{tbt:,.0f} / {longest:,.0f}"
            cells.append(f"{cell:>{width}}")
        lines.append(f"{LABELS[page]:<63}{''.join(cells)}")
    lines += ["", f"{'time and responsiveness, ms':<34}{'ready cold':>11}{'ready warm':>11}{'round trip':>11}"
              f"{f'{n} answer':>11}   {'max timer delay: boot cold | warm | trip | answer':>50}"]
    for page in pages:
        delays = " | ".join(_ms(med(page, pair(get, "lateness")), 0) for get in windows)
        lines.append(f"{LABELS[page]:<34}{_ms(med(page, lambda s: s.ready_cold), 11)}"
                     f"{_ms(med(page, lambda s: s.ready_warm), 11)}{_ms(med(page, lambda s: s.trip_ms), 11)}"
                     f"{_ms(med(page, lambda s: s.answer_ms), 11)}   {delays:>50}")

    lines += ["", f"{'time to ready by phase, ms, cold | warm':<34}{'nav → script':>18}{'its imports':>18}"
              f"{'the rest':>18}{'→ usable':>18}"]
    for page in pages:
        cells = []
        for phase in (lambda s, c: c[0], lambda s, c: c[1] - c[0], lambda s, c: c[2] - c[1],
                      lambda s, c: (s.ready_cold if c is s.script_cold else s.ready_warm) - c[2]):
            cold = med(page, lambda s: phase(s, s.script_cold))
            warm = med(page, lambda s: phase(s, s.script_warm))
            cells.append(f"{_ms(cold, 0)} | {_ms(warm, 0)}")
        lines.append(f"{LABELS[page]:<34}" + "".join(f"{cell:>18}" for cell in cells))

    def ratio(get: Callable[[Sample], float | None], a: str = "worker", b: str = "main") -> float | None:
        x, y = med(a, get), med(b, get)
        return None if x is None or y is None or y == 0 else x / y

    def paired(get: Callable[[Sample], float | None], a: str = "worker", b: str = "main") -> float | None:
        pairs = [(get(x), get(y)) for x, y in zip(r.samples.get(a, []), r.samples.get(b, []))]
        values = [x / y for x, y in pairs if x is not None and y]
        return statistics.median(values) if values else None

    def fmt_ratio(value: float | None) -> str:
        return "—" if value is None else f"{value:.2f}×"

    lines += ["", "ratios worker / main (of the medians; median of the same round's ratios in brackets):"]
    for label, get in (("ready cold", lambda s: s.ready_cold), ("ready warm", lambda s: s.ready_warm),
                       ("round trip", lambda s: s.trip_ms), (f"{n}-delta answer", lambda s: s.answer_ms)):
        lines.append(f"  {label:<20}{fmt_ratio(ratio(get)):>8}  ({fmt_ratio(paired(get))})")
    if "bare" in r.samples and "bare-worker" in r.samples:
        lines.append(f"  {'bare, ready cold':<20}{fmt_ratio(ratio(lambda s: s.ready_cold, 'bare-worker', 'bare')):>8}"
                     f"  (bare worker / bare main; warm "
                     f"{fmt_ratio(ratio(lambda s: s.ready_warm, 'bare-worker', 'bare'))})")

    if "worker" in r.samples:
        t = TARGETS
        boot = [(f"TBT nav → ready ({when})", med("worker", pair(get, "tbt")), t["boot tbt"])
                for when, get in (("cold", windows[0]), ("warm", windows[1]))]
        longest = [(f"longest task nav → ready ({when})", med("worker", pair(get, "longest")), t["boot longest"])
                   for when, get in (("cold", windows[0]), ("warm", windows[1]))]
        lines += ["", "targets, worker mode:"]
        for label, value, limit in [*boot, *longest,
                                    ("TBT during the round trip", med("worker", pair(windows[2], "tbt")), t["trip tbt"]),
                                    (f"TBT during the {n}-delta answer", med("worker", pair(windows[3], "tbt")),
                                     t["answer tbt"])]:
            if value is not None:
                lines.append(f"  {label:<42} ≤ {limit:>4.0f} ms: {value:>7,.0f} ms: {_met(value <= limit)}")
        for label, value, limit in (("time to ready ≤ 1.15× main (cold)", ratio(lambda s: s.ready_cold), t["ready ratio"]),
                                    ("time to ready ≤ 1.15× main (warm)", ratio(lambda s: s.ready_warm), t["ready ratio"]),
                                    (f"{n}-delta answer shown ≤ 1.5× main", ratio(lambda s: s.answer_ms),
                                     t["answer ratio"])):
            if value is not None:
                lines.append(f"  {label:<50}{value:>7.2f}×: {_met(value <= limit)}")
    if "worker" in r.samples:
        rewrites = [s.live_rewrites for s in r.samples["worker"]]
        lines += ["", f"worker mode's live-block workaround (web/bench/blocking.py) stepped in "
                  f"{sum(rewrites)} time(s), in {sum(1 for n in rewrites if n)} of {len(rewrites)} run(s)"]
    lines += ["", "TBT: Σ (duration − 50 ms) over the long tasks (PerformanceObserver 'longtask') that started in "
              "the window; ready: the page usable (chats' input and Send enabled);",
              "round trip / answer: Send click (event time) → the chat idle showing the answer, after the next frame; "
              "max timer delay: a 10 ms setInterval's worst lateness in the window;",
              "phases: PyScript and Pyodide start and install the wheels (nav → script), the page's Python script "
              "imports (pyscript, pyclient; bare: pydantic), makes its agents, threads and chats (the rest),",
              "sets data-pyclient=\"ready\", and the page sees its chats usable (→ usable; in a worker: the mirror's "
              "batch, and each DOM access is a round trip to the page)."]
    return "\n".join(line.rstrip() for line in lines)


def describe_frame(frame: dict[str, Any]) -> str:
    """A long animation frame in words: its length, blocking time, longest script (what invoked it,
    from which source, its forced style and layout) and the frame's own style and layout."""
    text = f"{frame['duration']:,.0f} ms (blocking {frame['blocking']:,.0f})"
    scripts = sorted(frame["scripts"], key=lambda script: -script["duration"])
    if scripts:
        top = scripts[0]
        source = (top["source"] or "").rsplit("/", 1)[-1] or "(no URL)"
        where = f"{source} {top['fn']}".strip() if top["fn"] else source
        text += f": script {top['duration']:,.0f} ms, {top['type']} {top['invoker']!r} in {where}"
        if top["forced"] >= 1:
            text += f", of which forced style+layout {top['forced']:,.0f} ms"
        if len(scripts) > 1:
            text += f" (+{len(scripts) - 1} script(s), {sum(x['duration'] for x in scripts[1:]):,.0f} ms)"
    return text + f"; style+layout {frame['layout']:,.0f} ms"


def report_frames(results: BlockingResults, pages: Sequence[str] = ("worker", "bare-worker")) -> str:
    """For the worker pages, the most blocking long animation frame of each run in each window."""
    windows: list[tuple[str, Callable[[Sample], Window | None]]] = [
        ("cold nav → ready", lambda s: s.boot_cold), ("warm nav → ready", lambda s: s.boot_warm),
        ("round trip", lambda s: s.trip), (f"{count_label(results.deltas)}-delta answer", lambda s: s.answer)]
    lines = ["what the main thread did in worker mode: the most blocking long animation frame (over 50 ms, "
             "rendering included; blocking: its long tasks' time over 50 ms) of each run, per window"]
    for page in pages:
        for label, get in windows:
            for run, sample_ in enumerate(results.samples.get(page, []), 1):
                window = get(sample_)
                if window is None:
                    continue
                longest = max(window.frames, key=lambda f: (f["blocking"], f["duration"]), default=None)
                text = "none" if longest is None else describe_frame(longest) + (
                    f"; {len(window.frames)} long frames in all" if len(window.frames) > 1 else "")
                lines.append(f"  {LABELS[page]}, {label}, run {run}: {text}")
    return "\n".join(lines)


def report_trace(name: str, traces: dict[str, list[dict[str, Any]]]) -> str:
    """A traced sample's long tasks on the renderers' main threads, part by part, with what they did."""
    lines = [f"trace of one more sample of {LABELS[name]}: the main thread's tasks over 50 ms (wall ms, CPU ms), "
             "exclusive time by trace event (scripts: FunctionCall url:line); the worker thread's in sum"]
    for part, tasks in traces.items():
        if part.endswith(", worker thread"):
            if tasks:
                lines.append(f"  {part}: {len(tasks)} task(s) over 50 ms, {sum(t['ms'] for t in tasks):,.0f} ms wall, "
                             f"{sum(t['cpu'] for t in tasks):,.0f} ms CPU")
            continue
        lines.append(f"  {part}: {len(tasks)} task(s)" + (":" if tasks else ""))
        for task in tasks:
            what = ", ".join(f"{event} {ms:.0f}" for event, ms in task["what"][:6])
            lines.append(f"    {task['ms']:6.0f} ms (CPU {task['cpu']:4.0f}): {what}" + (
                f"; scripts: {'; '.join(task['scripts'])}" if task["scripts"] else ""))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3,
                        help="interleaved rounds (default 3; the tables show medians; 0: only --trace)")
    parser.add_argument("--deltas", type=int, default=10_000, help="text deltas of the streamed answer (default 10,000)")
    parser.add_argument("--pages", default=",".join(PAGES), help=f"pages, comma-separated ({', '.join(PAGES)})")
    parser.add_argument("--trace", default="", help="also trace one more sample of a page (its name) and "
                        "print what its main thread's long tasks did")
    parser.add_argument("--timeout", type=float, default=120, help="seconds a boot or a send may take")
    args = parser.parse_args(argv)
    pages = [p for p in args.pages.split(",") if p]
    if unknown := set(pages) - set(PAGES) or ({args.trace} - {""} - set(PAGES)):
        parser.error(f"unknown page(s) {sorted(unknown)}: use {', '.join(PAGES)}")

    from playwright.sync_api import sync_playwright

    from bench.chat import exit_status
    from bench.streams import routes
    from devserver.app import create_app
    from devserver.assets import build
    from devserver.background import ServerThread

    build()
    started = time.monotonic()
    watch = Watch()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    timeout_ms = int(args.timeout * 1000)
    traced = None
    with ServerThread(create_app(coi=True, extra_routes=routes())) as server, sync_playwright() as playwright:
        results = run_blocking(playwright, server.url, runs=args.runs, deltas=args.deltas, pages=pages,
                               watch=watch, timeout_ms=timeout_ms, log=log) if args.runs else None
        if args.trace:
            traced = sample(playwright, server.url, args.trace, deltas=args.deltas, watch=watch,
                            timeout_ms=timeout_ms, trace=True)
    if results is not None:
        print()
        print(report_blocking(results))
        print()
        print(report_frames(results, [p for p in ("worker", "bare-worker") if p in pages]))
    if traced is not None:
        print()
        print(report_trace(args.trace, traced.traces))
    return exit_status(watch, started)  # type: ignore[arg-type]  # a Watch has a guard's outside and errors


if __name__ == "__main__":
    sys.exit(main())
