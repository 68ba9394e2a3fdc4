"""Long restored threads in the chat (issue 26): the last screen's time, the list's nodes, scrolling back to the top.

web/tests/long.html (web/tests/long.py) puts a saved thread of `n` messages in a `MemoryStore`
(questions, Markdown answers, a `lookup` call with its result before every tenth answer) and
makes a `Chat` on it, which restores it; `?windowed=0` makes it with `Chat(windowed=False)`,
which makes every message at once (what the chat did before `pyclient.browser._chat._history_window`).
Each sample is a fresh page, on the main thread or with the chat's Python in a PyScript
worker (`?pyclient-worker=1`), windowed or not; rounds are interleaved (`--runs`, medians).
Measured on the page's clock (`performance.now()`):

- last screen: from just before the chat is made (its restore starts) to the first animation
  frame whose list ends with the last message (long.html watches it each frame); beside it
  "restored", the restore alone, with no chat (`?chat=0`): the floor under it;
- nodes: the list's items (`<li>`: bubbles, cards) and all its elements, once the last screen shows;
- scrolling back: then, each animation frame scrolls the list up by `--step` px (a fast fling),
  until its first item is the first message, at the top: the time it took, the frames, the
  longest gap between two frames and the 95th percentile (after `--scroll-timeout` s, 240, it
  stops and says how many items it made: "top reached"), and the page's longest task
  (`PerformanceObserver` "longtask": the main thread's; in a worker the Python's own tasks are
  not on it, the frame gaps still show when the page waits for them). Windowed, the top is
  made a batch a frame (`pyclient.browser._chat._history_window.BATCH` messages) while the list is within
  a screen of it, so the fling waits there for the batches.

Targets (printed "met" / "MISSED"): the last screen within 1 s of the restore's start, and
smooth scrolling back: no gap between two frames over 100 ms (a frame late by more than about
six frames is a visible stutter), windowed, in each mode.

    python bench/window.py                      # 10,000 messages, both modes, 3 rounds
    python bench/window.py --messages 2000 --runs 1 --modes main

`run_window(playwright, base_url)` and `report_window(results)` are what `bench/run.py` uses
(`--only window`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/ and pyclient as packages


__all__ = ["TARGET_GAP_MS", "TARGET_LAST_MS", "WindowResults", "report_window", "run_window"]

TARGET_LAST_MS = 1_000.0
"""The restored thread's last screen within 1 s of the restore's start."""

TARGET_GAP_MS = 100.0
"""Scrolling back to the top: no gap between two animation frames over 100 ms."""

PAGE = "/tests/long.html"

# Scrolls the list up by `step` px a frame until its first item is the first message, at the
# top; the frames' times, and the page's long tasks since it loaded.
SCROLL_BACK = """async ([step, timeoutMs]) => {
  const list = document.querySelector('#chat .pyclient-messages');
  const frames = [];
  const started = performance.now();
  const longest = () => Math.max(0, ...window.longTasks.filter((t) => t.startTime >= started).map((t) => t.duration));
  await new Promise((resolve) => {
    const frame = (now) => {
      frames.push(now);
      const first = list.firstElementChild;
      if (list.scrollTop === 0 && first && first.textContent.startsWith('question 0')) return resolve();
      if (now - started > timeoutMs) return resolve();
      list.scrollTop = Math.max(0, list.scrollTop - step);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  const gaps = frames.slice(1).map((t, i) => t - frames[i]);
  const first = list.firstElementChild;
  return {ms: performance.now() - started, frames: frames.length, gaps,
          reached: list.scrollTop === 0 && !!first && first.textContent.startsWith('question 0'),
          items: list.children.length, longest: longest()};
}"""

STATE = """() => {
  const list = document.querySelector('#chat .pyclient-messages');
  return {last: window.lastShown - window.restoreStart, items: list.children.length,
          elements: list.getElementsByTagName('*').length};
}"""

# A page observes its long tasks from the start (buffered entries are read later).
PROBE = ("window.longTasks = []; new PerformanceObserver((list) => window.longTasks.push(...list.getEntries()))"
         ".observe({type: 'longtask', buffered: true});")


@dataclass
class Sample:
    last_ms: float
    items: int
    elements: int
    top_ms: float
    frames: int
    max_gap: float
    p95_gap: float
    longest_task: float  # while scrolling back (0: none over 50 ms)
    top_items: int
    reached: bool  # the first message came in before the timeout


@dataclass
class WindowResults:
    messages: int
    step: int
    runs: int
    load: str
    samples: dict[tuple[str, bool], list[Sample]] = field(default_factory=dict)  # (mode, windowed) -> samples
    restore_ms: dict[str, list[float]] = field(default_factory=dict)  # mode -> the restore alone (no chat)


def _sample(context: Any, base_url: str, messages: int, *, mode: str, windowed: bool, step: int,
            timeout_ms: int, scroll_ms: int) -> Sample:
    from pyclient.testing import PyclientPage

    guard = PyclientPage(context.new_page())
    try:
        page = guard.page
        page.add_init_script(PROBE)
        path = f"{PAGE}?n={messages}&windowed={int(windowed)}&thread=bench-{time.monotonic_ns()}"
        guard.open(base_url.rstrip("/") + path, timeout_ms, worker=mode == "worker",
                   ready="document.documentElement.dataset.pyclient === 'ready'")
        page.wait_for_function("window.lastShown !== undefined", timeout=timeout_ms, polling=50)
        state = page.evaluate(STATE)
        page.wait_for_timeout(300)  # the frames after the restore (card updates) settle
        scrolled = page.evaluate(SCROLL_BACK, [step, scroll_ms])
        guard.check()
    finally:
        guard.page.close()
    gaps = sorted(scrolled["gaps"]) or [0.0]
    return Sample(last_ms=state["last"], items=state["items"], elements=state["elements"], top_ms=scrolled["ms"],
                  frames=scrolled["frames"], max_gap=gaps[-1], p95_gap=gaps[int(0.95 * (len(gaps) - 1))],
                  longest_task=scrolled["longest"],
                  top_items=scrolled["items"], reached=scrolled["reached"])


def _restore_only(context: Any, base_url: str, messages: int, *, mode: str, timeout_ms: int) -> float:
    """The restore alone (`?chat=0`): ms from its start to the thread restored, on the page's clock."""
    from pyclient.testing import PyclientPage

    guard = PyclientPage(context.new_page())
    try:
        path = f"{PAGE}?n={messages}&chat=0&thread=bench-{time.monotonic_ns()}"
        guard.open(base_url.rstrip("/") + path, timeout_ms, worker=mode == "worker",
                   ready="document.documentElement.dataset.pyclient === 'ready'")
        guard.page.wait_for_function("window.lastShown !== undefined", timeout=timeout_ms, polling=50)
        restored = float(guard.page.evaluate("window.lastShown - window.restoreStart"))
        guard.check()
        return restored
    finally:
        guard.page.close()


def run_window(playwright: Any, base_url: str, *, messages: int = 10_000, runs: int = 3,
               modes: Sequence[str] = ("main", "worker"), step: int = 3_000, timeout_ms: int = 600_000,
               scroll_ms: int = 240_000,
               log: Callable[[str], None] = lambda line: None) -> WindowResults:
    """Interleaved rounds of every (mode, windowed) pair on `base_url` (a dev server whose pages
    answer `?pyclient-worker=1`); each sample a fresh page in one browser."""
    import os

    from devserver.chromium import launch_args

    results = WindowResults(messages, step, runs, "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    browser = playwright.chromium.launch(**launch_args())
    try:
        context = browser.new_context(viewport={"width": 1000, "height": 900})
        for round_ in range(runs):
            for mode in modes:
                results.restore_ms.setdefault(mode, []).append(
                    _restore_only(context, base_url, messages, mode=mode, timeout_ms=timeout_ms))
                for windowed in (True, False):
                    sample = _sample(context, base_url, messages, mode=mode, windowed=windowed, step=step,
                                     timeout_ms=timeout_ms, scroll_ms=scroll_ms)
                    results.samples.setdefault((mode, windowed), []).append(sample)
                    log(f"window: round {round_ + 1} {mode} windowed={windowed}: last screen {sample.last_ms:.0f} ms, "
                        f"{sample.items} items, top in {sample.top_ms:.0f} ms, max gap {sample.max_gap:.0f} ms")
    finally:
        browser.close()
    return results


def report_window(results: WindowResults) -> str:
    """The table (medians), the windowed / whole ratios and the targets."""
    median = statistics.median
    lines = [f"Long restored thread: {results.messages:,} messages, {results.runs} round(s), "
             f"scrolled back {results.step} px a frame ({results.load} at the start)", "",
             f"{'mode':<8}{'windowed':<10}{'restored':>10}{'last screen':>12}{'items':>8}{'elements':>10}{'to the top':>12}"
             f"{'frames':>8}{'max gap':>9}{'p95 gap':>9}{'longest task':>14}{'top reached':>13}",
             ]
    for (mode, windowed), samples in results.samples.items():
        lines.append(f"{mode:<8}{'yes' if windowed else 'no':<10}{median(results.restore_ms[mode]):>7.0f} ms"
                     f"{median(s.last_ms for s in samples):>9.0f} ms{median(s.items for s in samples):>8.0f}"
                     f"{median(s.elements for s in samples):>10.0f}{median(s.top_ms for s in samples):>9.0f} ms"
                     f"{median(s.frames for s in samples):>8.0f}{median(s.max_gap for s in samples):>6.0f} ms"
                     f"{median(s.p95_gap for s in samples):>6.0f} ms{median(s.longest_task for s in samples):>11.0f} ms"
                     f"{sum(s.reached for s in samples):>8}/{len(samples)}"
                     f" ({median(s.top_items for s in samples):.0f} items)")
    lines.append("")
    for mode in dict.fromkeys(mode for mode, _ in results.samples):
        on, off = results.samples.get((mode, True)), results.samples.get((mode, False))
        if on and off:
            ratio = median(s.last_ms for s in on) / median(s.last_ms for s in off)
            lines.append(f"{mode}: last screen windowed / whole {ratio:.2f}x")
        if on:
            last = median(s.last_ms for s in on)
            gap = max(s.max_gap for s in on)
            lines.append(f"{mode}: last screen ≤ {TARGET_LAST_MS:.0f} ms: {last:.0f} ms "
                         f"{'met' if last <= TARGET_LAST_MS else 'MISSED'}")
            lines.append(f"{mode}: scrolling back, no frame gap over {TARGET_GAP_MS:.0f} ms: worst {gap:.0f} ms "
                         f"{'met' if gap <= TARGET_GAP_MS else 'MISSED'}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000, help="messages of the restored thread")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds (the table shows medians)")
    parser.add_argument("--modes", default="main,worker", help="main, worker or both, comma-separated")
    parser.add_argument("--step", type=int, default=3_000, help="px the list is scrolled up each frame")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one sample may take")
    parser.add_argument("--scroll-timeout", type=float, default=240,
                        help="seconds the scroll back may take (then the sample says how far it got)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from devserver.app import WEB, create_app
    from devserver.assets import build
    from devserver.background import ServerThread
    from pyclient.testing._worker_pages import WorkerPages

    build()
    started = time.monotonic()
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    with ServerThread(WorkerPages(create_app(), WEB)) as server, sync_playwright() as playwright:
        results = run_window(playwright, server.url, messages=args.messages, runs=args.runs,
                             modes=[m for m in args.modes.split(",") if m], step=args.step,
                             timeout_ms=int(args.timeout * 1000), scroll_ms=int(args.scroll_timeout * 1000), log=log)
    print(report_window(results))
    print(f"\n({time.monotonic() - started:.0f} s in all)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
