"""Chat-path benchmark: the same AG-UI streams through a bare thread and through a thread with a Chat.

The dev server runs with the benchmark routes of `bench/streams.py` (streams generated
server-side, byte-identical for every client); one headless Chromium (fresh context, every
request outside 127.0.0.1 aborted and reported) opens `web/bench/chat.html`. Each sample mounts
a fresh thread on a fresh element and times, page-side with `performance.now()`:

- thread path: `await thread.send("bench")`, no Chat;
- chat path: the same with `pyclient.browser.Chat(thread, element)` attached (its public
  constructor only), until `send()` has returned and the chat's element shows the final text
  (and, for parallel calls, all N results);

the longest gap between `setTimeout(0)` ticks and between animation frames meanwhile (how
long the page could not respond), the longest task on the page's main thread (a
`PerformanceObserver` of "longtask" entries, which the browser reports from 50 ms) and the
longest rendering step of a frame ("long-animation-frame" entries from their `renderStart`:
the animation-frame callbacks, where the Chat draws, then style, layout and paint). Cases: N text deltas (10k, 20k, 40k), 1,000 parallel calls of
a page tool then a short text, and one call whose ~1 MB argument comes in 10,000 deltas then a
short text. Runs are interleaved (every case and path once per round, the path order
alternating) and the table gives medians.

    python bench/chat.py                      # 3 rounds at the full sizes
    python bench/chat.py --runs 5
    python bench/chat.py --sizes 200 --parallel 20 --bytes 20000 --deltas 200 --runs 1   # smoke

`run_bench(page, base_url, ...)` runs the same on any Playwright page (tests/e2e/test_bench_smoke.py).
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
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import agui_client  # noqa: E402
from bench.streams import blob_result, event_count, follow_up_text, long_text, routes  # noqa: E402
from pyclient.testing import PyclientPage  # noqa: E402

PAGE = "/bench/chat.html"
PATHS = ("thread", "chat")
TARGET_CHAT_OVER_THREAD = 1.3
"""The target: the chat path takes at most 1.3× the thread path, at the largest text size and
on the parallel-calls and big-argument rows."""
TARGET_LONGEST_TASK_MS = 200.0
"""The target: while the chat path shows the parallel calls' cards, no frame's rendering step
(the Chat's drawing, then style, layout and paint) is longer than this: cards are made over
frames. (The longest task is printed too; on both paths it is the core's handling of the
stream's one chunk of 3,000 events, which no Chat can split.)"""
READY_TIMEOUT_MS = 120_000


class BenchError(RuntimeError):
    """A sample did not do what it should (an error, a wrong text, a missing result): no figure."""


@dataclass(frozen=True)
class Case:
    """One benchmark row: a stream of `kind` with `params`."""

    label: str
    kind: str  # "long", "parallel" or "bigargs"
    params: tuple[tuple[str, int], ...]
    mark: str = ""  # the server's Timeline records the requests under this key (bench/streams.py)

    @property
    def p(self) -> dict[str, int]:
        return dict(self.params)

    @property
    def url(self) -> str:
        query: list[tuple[str, int | str]] = [*self.params, *([("mark", self.mark)] if self.mark else [])]
        return f"/bench/{self.kind}?{urlencode(query)}"

    @property
    def final_text(self) -> str:
        """The text of the thread's last assistant message once `send()` returns."""
        if self.kind == "long":
            return long_text(self.p["n"])
        return follow_up_text(self.kind, **self.p)

    @property
    def events(self) -> int:
        return event_count(self.kind, **self.p)

    @property
    def calls(self) -> int:
        return {"long": 0, "parallel": self.p.get("n", 0), "bigargs": 1}[self.kind]


def default_cases(sizes: Sequence[int] = (10_000, 20_000, 40_000), parallel: int = 1_000,
                  blob_bytes: int = 1_000_000, deltas: int = 10_000) -> list[Case]:
    """The benchmark rows: text at each size, the parallel calls, the big argument."""
    cases = [Case(f"text, {count_label(n)} deltas", "long", (("n", n),)) for n in sizes]
    if parallel:
        cases.append(Case(f"{count_label(parallel)} parallel calls", "parallel", (("n", parallel),)))
    if blob_bytes:
        cases.append(Case(f"{_size(blob_bytes)} args in {count_label(deltas)} deltas", "bigargs",
                          (("bytes", blob_bytes), ("deltas", deltas))))
    return cases


def count_label(n: int) -> str:
    """The size in a row's label: "10k" for 10,000, "1,500" for 1,500."""
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else f"{n:,}"


def _size(n: int) -> str:
    return f"{n / 1e6:g} MB" if n >= 1_000_000 else f"{n / 1e3:g} KB"


@dataclass
class Sample:
    """One timed send: ms until `send()` returned (`sent`) and until the chat showed it all (`shown`)."""

    sent: float
    shown: float | None
    gap_timeout: float
    gap_frame: float
    longest_task: float  # ms, the longest "longtask" entry during the sample (0: none over 50 ms)
    longest_render: float  # ms, the longest frame's rendering step ("long-animation-frame", 0: none)
    shown_in_dom: bool  # the element showed the final text and every result (always False without a Chat)
    tool_results: int

    @property
    def elapsed(self) -> float:
        return self.shown if self.shown is not None else self.sent


@dataclass
class Results:
    cases: list[Case]
    runs: int
    samples: dict[tuple[str, str], list[Sample]] = field(default_factory=dict)
    browser: str = ""

    def median(self, case: Case, path: str, attr: str = "elapsed") -> float:
        return statistics.median(getattr(s, attr) for s in self.samples[(case.label, path)])


def wait_ready(page: Any, timeout: int = READY_TIMEOUT_MS) -> None:
    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'", timeout=timeout, polling=25)


def open_bench_page(page: Any, base_url: str, *, fresh: bool = True) -> None:
    """Load the bench page on `base_url` and wait until its Python is ready; with `fresh=False`
    a page already showing it is kept (the smoke test boots Pyodide once for every part)."""
    if fresh or urlsplit(page.url).path != PAGE:
        page.goto(base_url.rstrip("/") + PAGE)
        wait_ready(page)


def measure(page: Any, case: Case, path: str, *, timeout_ms: int = 600_000) -> Sample:
    """One sample of `case` on `path` ("thread" or "chat") in the bench page `page`.

    Raises:
        BenchError: the send failed, the thread's text or results are not what the stream
            says, or the chat did not show them.
    """
    chat = path == "chat"
    needles = [case.final_text]
    if case.kind == "bigargs":
        needles.append(blob_result(case.p["bytes"]))
    spec = {"url": case.url, "text": "bench", "chat": chat, "needles": needles,
            "marks": case.calls if case.kind == "parallel" else 0, "timeoutMs": timeout_ms}
    out = page.evaluate("spec => window.measure(spec)", spec)
    summary = out["summary"]
    problems = []
    if out["error"]:
        problems.append(out["error"])
    if summary["status"] != "idle" or summary["error"]:
        problems.append(f"thread ended {summary['status']!r} with error {summary['error']!r}")
    if summary["last"] != case.final_text:
        last = summary["last"]
        problems.append(f"last message is {None if last is None else last[:80] + '…'!r}, not the stream's text")
    if summary["tool_results"] != case.calls or summary["tool_errors"]:
        problems.append(f"{summary['tool_results']} tool results ({summary['tool_errors']} failed), "
                        f"expected {case.calls}, first: {summary['first_result']!r}")
    if case.kind == "parallel" and summary["distinct_results"] != case.calls:
        problems.append(f"{summary['distinct_results']} distinct results, expected {case.calls}")
    if chat and not summary["shown_in_dom"]:
        problems.append("the chat's element does not show the final text and every result")
    if problems:
        raise BenchError(f"{case.label}, {path} path: " + "; ".join(problems))
    return Sample(out["sent"], out["shown"], out["gaps"]["timeout"], out["gaps"]["frame"], out["gaps"]["task"],
                  out["gaps"]["render"],
                  summary["shown_in_dom"], summary["tool_results"])


def run_bench(page: Any, base_url: str, cases: Sequence[Case], *, runs: int = 3, warm_up: bool = True,
              timeout_ms: int = 600_000, fresh: bool = True,
              log: Callable[[str], None] = lambda line: None) -> Results:
    """Open the bench page on `base_url` (a dev server with `bench.streams.routes()`; see
    `open_bench_page` for `fresh`) and measure every case on both paths `runs` times, interleaved."""
    open_bench_page(page, base_url, fresh=fresh)
    results = Results(list(cases), runs, browser=page.context.browser.version if page.context.browser else "")
    if warm_up:  # imports, JIT and the server's stream cache, at a tenth of each size (min 1)
        for case in cases:
            small = Case(case.label, case.kind, tuple((k, max(1, v // 10)) for k, v in case.params))
            for path in PATHS:
                measure(page, small, path, timeout_ms=timeout_ms)
    for run in range(runs):
        for case in cases:
            for path in (PATHS if run % 2 == 0 else PATHS[::-1]):
                sample = measure(page, case, path, timeout_ms=timeout_ms)
                results.samples.setdefault((case.label, path), []).append(sample)
                log(f"run {run + 1}/{runs} {case.label:<28} {path:<6} {sample.elapsed:9.1f} ms"
                    f"  (send {sample.sent:.1f} ms, max gap {sample.gap_timeout:.0f}/{sample.gap_frame:.0f} ms,"
                    f" longest task {sample.longest_task:.0f} ms, frame {sample.longest_render:.0f} ms)")
    return results


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def report(results: Results) -> str:
    """The table: medians (ms), events/s, chat/thread per row, longest gaps and tasks, t_largest/t_smallest
    per path, and the targets (chat/thread; the longest task while the parallel calls' cards appear)."""
    lines = [f"chat path vs thread path: median of {results.runs} interleaved run(s), "
             f"headless Chromium {results.browser}, everything on 127.0.0.1",
             "", f"{'case':<30}{'events':>8} {'thread ms':>10}{'chat ms':>10} {'thread ev/s':>12}"
             f"{'chat ev/s':>11} {'chat/thread':>12}  {'max gap ms thread | chat':>25}"
             f"  {'longest task | frame ms':>26}  target"]
    texts = [c for c in results.cases if c.kind == "long"]
    largest = max(texts, key=lambda c: c.p["n"]) if texts else None
    task_lines = []
    for case in results.cases:
        thread = results.median(case, "thread")
        chat = results.median(case, "chat")
        ratio = chat / thread
        gaps = " | ".join(
            f"{results.median(case, path, 'gap_timeout'):.0f}/{results.median(case, path, 'gap_frame'):.0f}"
            for path in PATHS)
        tasks = " | ".join(f"{results.median(case, path, 'longest_task'):.0f}/"
                           f"{results.median(case, path, 'longest_render'):.0f}" for path in PATHS)
        target = ""
        if case is largest or case.kind in ("parallel", "bigargs"):
            target = f"chat ≤ {TARGET_CHAT_OVER_THREAD:.1f}× thread: {_met(ratio <= TARGET_CHAT_OVER_THREAD)}"
        if case.kind == "parallel":
            chats = results.samples[(case.label, "chat")]
            longest = max(s.longest_render for s in chats)
            task_lines.append(
                f"longest frame on the chat path while {count_label(case.calls)} cards appear "
                f"≤ {TARGET_LONGEST_TASK_MS:.0f} ms: {_met(longest <= TARGET_LONGEST_TASK_MS)} "
                f"(the longest of {len(chats)} sample(s): {longest:.0f} ms; longest task: chat path "
                f"{max(s.longest_task for s in chats):.0f} ms, thread path "
                f"{max(s.longest_task for s in results.samples[(case.label, 'thread')]):.0f} ms)")
        lines.append(f"{case.label:<30}{case.events:>8,} {thread:>10.1f}{chat:>10.1f} "
                     f"{case.events / thread * 1000:>12,.0f}{case.events / chat * 1000:>11,.0f} "
                     f"{ratio:>11.2f}×  {gaps:>25}  {tasks:>26}  {target}")
    if len(texts) >= 2:
        smallest = min(texts, key=lambda c: c.p["n"])
        assert largest is not None
        scale = largest.p["n"] / smallest.p["n"]
        growth = "   ".join(
            f"{path} {results.median(largest, path) / results.median(smallest, path):.2f}×" for path in PATHS)
        lines.append("")
        lines.append(f"t{count_label(largest.p['n'])} / t{count_label(smallest.p['n'])}: {growth}   "
                     f"(linear: {scale:.2f}×)")
    if task_lines:
        lines += ["", *task_lines]
    lines.append("")
    lines.append("thread ms: until `await thread.send()` returned; chat ms: until it returned and the chat's "
                 "element showed the final text (and every result).")
    lines.append("max gap: longest wait between setTimeout(0) ticks / between animation frames during the sample.")
    lines.append("longest task | frame: the longest task on the page's main thread during the sample "
                 "(PerformanceObserver 'longtask'), and the longest rendering step of a frame ('long-animation-frame' "
                 "from renderStart: animation-frame callbacks, style, layout, paint); 0: none over 50 ms.")
    return "\n".join(line.rstrip() for line in lines)


def exit_status(guard: PyclientPage, started: float) -> int:
    """Say how long the run took; 1 (with what happened) if a request left 127.0.0.1 or the page failed."""
    print(f"\n({time.monotonic() - started:.0f} s in all)", file=sys.stderr)
    if guard.outside or guard.errors:
        print(f"\nrequests that left 127.0.0.1 (aborted): {guard.outside}\npage errors: {guard.errors[:3]}",
              file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds (default 3; the table shows medians)")
    parser.add_argument("--sizes", default="10000,20000,40000", help="text deltas per run, comma-separated")
    parser.add_argument("--parallel", type=int, default=1_000, help="parallel calls (0: skip the row)")
    parser.add_argument("--bytes", type=int, default=1_000_000, help="size of the big argument (0: skip the row)")
    parser.add_argument("--deltas", type=int, default=10_000, help="TOOL_CALL_ARGS deltas of the big argument")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one sample may take")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from devserver.app import create_app
    from devserver.assets import build
    from devserver.background import ServerThread
    from devserver.chromium import launch_args

    cases = default_cases([int(n) for n in args.sizes.split(",") if n], args.parallel, args.bytes, args.deltas)
    build()
    started = time.monotonic()
    # The page also loads @ag-ui/client for bench/run.py's other clients: bundled once, cached.
    app = create_app(extra_routes=[*routes(), agui_client.route()])
    with ServerThread(app) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_args())
        try:
            # pyclient's own guard: aborts and records requests leaving 127.0.0.1, and uncaught errors.
            guard = PyclientPage(browser.new_context().new_page())
            page = guard.page
            results = run_bench(page, server.url, cases, runs=args.runs, timeout_ms=int(args.timeout * 1000),
                                log=lambda line: print(line, file=sys.stderr, flush=True))
        finally:
            browser.close()
    print(report(results))
    return exit_status(guard, started)


if __name__ == "__main__":
    sys.exit(main())
