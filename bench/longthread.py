"""Long threads: one pyclient thread doing thousands of tool round trips; does its cost grow?

`POST /bench/loop?rounds=R` (bench/streams.py) answers every run with a short fixed text and one
call of the page tool `bench_mark`, until R tool results follow the last user message; then a
short text ends the send. One thread on the bench page does `sends` sends of R round trips
each (`rounds` in all), so its history grows by one assistant message and one tool result per
round trip. Measured:

- client time per round trip: from the server's `Timeline`, the time from a response's last
  byte to the follow-up's arrival (the server's own time is left out), averaged over the first
  `window` round trips and over the last `window`; their ratio;
- memory after each send: the JS heap after a forced garbage collection (CDP
  `HeapProfiler.collectGarbage`, `Runtime.getHeapUsage`) and the size of Pyodide's wasm memory;
  growth per round trip from the end of the first send to the end of the last, beside the
  history's own bytes per round trip (the growth of the request body, i.e. the JSON of what
  each round trip adds).

Every send is checked: the thread is idle without error, ends with the loop's last text, and
holds one successful result per round trip so far.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.chat import BenchError, open_bench_page
from bench.streams import LOOP_DONE, Timeline

__all__ = ["TARGET_GROWTH", "LongThreadResults", "report_long_thread", "run_long_thread"]

TARGET_GROWTH = 1.5
"""Client time per round trip over the last window at most 1.5× the first window's."""


@dataclass
class LongThreadResults:
    rounds: int
    per_send: int
    window: int
    gaps: list[float] = field(default_factory=list)  # ms per round trip, in order
    send_ms: list[float] = field(default_factory=list)
    heap: list[int] = field(default_factory=list)  # JS heap bytes after each send (after GC)
    wasm: list[int] = field(default_factory=list)  # wasm memory bytes after each send
    bodies: list[int] = field(default_factory=list)  # request body bytes, in order

    @property
    def first(self) -> float:
        return statistics.fmean(self.gaps[:self.window])

    @property
    def last(self) -> float:
        return statistics.fmean(self.gaps[-self.window:])

    def growth(self, values: list[int]) -> float:
        """Bytes per round trip from the end of the first send to the end of the last."""
        if len(values) < 2:
            return float("nan")
        return (values[-1] - values[0]) / (self.rounds - self.per_send)

    @property
    def history_bytes(self) -> float:
        """Request-body growth per round trip over the whole thread."""
        return (self.bodies[-1] - self.bodies[0]) / self.rounds


SEND = """async ([id, timeoutMs]) => {
  const started = performance.now();
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error("timeout")), timeoutMs); });
  await Promise.race([window.bench.send(id, "bench"), late]).finally(() => clearTimeout(timer));
  return performance.now() - started;
}"""


def _send(page: Any, thread_id: str, done: int, timeout_ms: int) -> float:
    """One checked send on the thread: its ms; `done` is the results the thread must hold after it."""
    ms = float(page.evaluate(SEND, [thread_id, timeout_ms]))
    summary = json.loads(page.evaluate("id => window.bench.summary(id)", thread_id))
    if (summary["status"] != "idle" or summary["error"] or summary["last"] != LOOP_DONE
            or summary["tool_results"] != done or summary["tool_errors"] or summary["distinct_results"] != done):
        raise BenchError(f"long thread: {summary}, expected {done} distinct results and {LOOP_DONE!r}")
    return ms


def _thread(page: Any, per_send: int, key: str) -> str:
    url = f"/bench/loop?rounds={per_send}&mark={key}"
    return str(page.evaluate("([url, n]) => window.bench.prepare(url, false, n)", [url, per_send + 1]))


def run_long_thread(page: Any, base_url: str, timeline: Timeline, *, rounds: int = 2_000, per_send: int = 100,
                    window: int = 100, timeout_ms: int = 600_000, fresh: bool = True,
                    log: Callable[[str], None] = lambda line: None) -> LongThreadResults:
    """One thread on the bench page (see `bench.chat.open_bench_page` for `fresh`) doing `rounds`
    round trips in sends of `per_send`, after a warm-up thread of one send, unrecorded."""
    if rounds % per_send or window > per_send:
        raise ValueError(f"rounds ({rounds}) must be a multiple of per_send ({per_send}), and window ({window}) "
                         "at most per_send.")
    open_bench_page(page, base_url, fresh=fresh)
    warm_up = _thread(page, per_send, "long-thread-warm-up")
    _send(page, warm_up, per_send, timeout_ms)
    page.evaluate("id => window.bench.dispose(id)", warm_up)
    cdp = page.context.new_cdp_session(page)
    key = "long-thread"
    thread_id = _thread(page, per_send, key)
    results = LongThreadResults(rounds, per_send, window)
    for send in range(rounds // per_send):
        done = (send + 1) * per_send
        ms = _send(page, thread_id, done, timeout_ms)
        cdp.send("HeapProfiler.collectGarbage")
        results.heap.append(int(cdp.send("Runtime.getHeapUsage")["usedSize"]))
        results.wasm.append(int(page.evaluate("window.bench.wasm_bytes()")))
        results.send_ms.append(ms)
        log(f"long thread: {done}/{rounds} round trips, send {ms:8.1f} ms, JS heap {results.heap[-1] / 1e6:6.1f} MB, "
            f"wasm {results.wasm[-1] / 1e6:6.1f} MB")
    page.evaluate("id => window.bench.dispose(id)", thread_id)
    results.gaps = [gap * 1000 for gap in timeline.gaps(key)]
    results.bodies = [visit.body_bytes for visit in timeline.visits[key]]
    if len(results.gaps) != rounds:
        raise BenchError(f"long thread: the server saw {len(results.gaps)} follow-ups, expected {rounds}")
    return results


def report_long_thread(r: LongThreadResults) -> str:
    ratio = r.last / r.first
    met = "met" if ratio <= TARGET_GROWTH else "MISSED"
    heap, wasm = r.growth(r.heap), r.growth(r.wasm)
    memory = "met" if max(heap, wasm) <= r.history_bytes else "MISSED"
    n, w = r.rounds, r.window
    lines = [f"long thread: one thread, {n:,} tool round trips in sends of {r.per_send}, "
             "client time per round trip (response end → follow-up arrival, server clock)", "",
             f"{'':<34}{'ms/round trip':>14}{'send ms/round trip':>20}",
             f"{f'round trips 1–{w}':<34}{r.first:>14.2f}{r.send_ms[0] / r.per_send:>20.2f}",
             f"{f'round trips {n - w + 1:,}–{n:,}':<34}{r.last:>14.2f}{r.send_ms[-1] / r.per_send:>20.2f}",
             f"{'ratio':<34}{ratio:>13.2f}×{r.send_ms[-1] / r.send_ms[0]:>19.2f}×",
             "",
             f"memory growth per round trip (end of send 1 → end of send {n // r.per_send}):",
             f"  JS heap (after GC)     {heap:>10,.0f} B",
             f"  wasm memory            {wasm:>10,.0f} B   ({r.wasm[0] / 1e6:.1f} → {r.wasm[-1] / 1e6:.1f} MB)",
             f"  history's own bytes    {r.history_bytes:>10,.0f} B   (request body {r.bodies[0]:,} → {r.bodies[-1]:,} B)",
             "",
             f"target: last {w} ≤ {TARGET_GROWTH:.1f}× first {w}: {ratio:.2f}×: {met}",
             f"target: memory growth ≤ history's bytes: {memory}",
             "send ms/round trip: the page's time for a whole send ÷ its round trips (server included)."]
    return "\n".join(lines)
