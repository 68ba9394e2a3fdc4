"""Dispatch: from a run's last byte (it ends with a client tool call) to the follow-up request.

Both clients read `POST /bench/parallel?n=1` (one call of the page tool `bench_mark`, then a
short text after the follow-up) on the same page and server: pyclient through
`await thread.send()` on a fresh thread (bench/chat.py's thread path), and a hand-written JS
loop on `@ag-ui/client`'s `HttpAgent` (`runAgent`, run the tool, append the tool message,
`runAgent` again; web/bench/clients.js). The server's `Timeline` (bench/streams.py) notes, on
its own clock, when the first response's last byte went out and when the follow-up arrived;
the gap is the client's dispatch: read the end of the stream, decide, run the tool, build and
send the next request. Every sample must end with the follow-up's text and one result.

`run_dispatch(page, base_url, timeline)` measures, `report_dispatch(results)` prints.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.chat import BenchError, Case, measure, open_bench_page
from bench.streams import Timeline

__all__ = ["DISPATCH_CLIENTS", "TARGET_DISPATCH", "DispatchResults", "report_dispatch", "run_dispatch"]

DISPATCH_CLIENTS = {"pyclient": "pyclient Thread.send", "agui": "JS loop on @ag-ui/client HttpAgent"}
TARGET_DISPATCH = 1.5
"""pyclient's median dispatch at most 1.5× the JS loop's."""


@dataclass
class DispatchResults:
    rounds: int
    gaps: dict[str, list[float]] = field(default_factory=dict)  # ms per client

    def median(self, client: str) -> float:
        return statistics.median(self.gaps[client])


def _one(page: Any, timeline: Timeline, client: str, key: str, timeout_ms: int) -> float:
    case = Case("dispatch", "parallel", (("n", 1),), mark=key)
    if client == "pyclient":
        measure(page, case, "thread", timeout_ms=timeout_ms)  # checks the text and the one result
    else:
        out = page.evaluate("spec => window.jsToolLoop(spec)", {"url": case.url, "timeoutMs": timeout_ms})
        if out["error"] or out["text"] != case.final_text or out["results"] != 1:
            raise BenchError(f"dispatch, JS loop: error {out['error']!r}, {out['results']} result(s), "
                             f"text {out['text']!r} (expected {case.final_text!r})")
    gaps = timeline.gaps(key)
    if len(gaps) != 1:
        raise BenchError(f"dispatch, {client}: the server saw {len(timeline.visits.get(key, []))} request(s), "
                         "expected a run and its follow-up")
    return gaps[0] * 1000


def run_dispatch(page: Any, base_url: str, timeline: Timeline, *, rounds: int = 30, warm_up: int = 3,
                 timeout_ms: int = 60_000, fresh: bool = True,
                 log: Callable[[str], None] = lambda line: None) -> DispatchResults:
    """`rounds` round trips of each client, alternating which goes first, after `warm_up` unrecorded ones."""
    open_bench_page(page, base_url, fresh=fresh)
    results = DispatchResults(rounds)
    clients = list(DISPATCH_CLIENTS)
    cdp = page.context.new_cdp_session(page)
    for i in range(-warm_up, rounds):
        for client in (clients if i % 2 == 0 else clients[::-1]):
            # A collection now, not in the middle of the next sample: without it, the sample after
            # a JS loop's (whichever client's) took ~40 ms more.
            cdp.send("HeapProfiler.collectGarbage")
            gap = _one(page, timeline, client, f"dispatch-{client}-{i}", timeout_ms)
            if i >= 0:
                results.gaps.setdefault(client, []).append(gap)
                log(f"dispatch {i + 1}/{rounds} {client:<8} {gap:7.2f} ms")
    return results


def report_dispatch(results: DispatchResults) -> str:
    lines = [f"dispatch: last byte of a run that ends with a tool call → follow-up request at the server "
             f"(server clock, 127.0.0.1), {results.rounds} round trips each", "",
             f"{'client':<38}{'median ms':>10}{'min':>8}{'max':>8}"]
    for client, label in DISPATCH_CLIENTS.items():
        gaps = results.gaps[client]
        lines.append(f"{label:<38}{statistics.median(gaps):>10.2f}{min(gaps):>8.2f}{max(gaps):>8.2f}")
    ratio = results.median("pyclient") / results.median("agui")
    # Round trips run in pairs (one of each client), so a slow moment of the machine or the
    # network stack hits both of a pair: the median of the pairs' ratios discounts it.
    paired = statistics.median(p / a for p, a in zip(results.gaps["pyclient"], results.gaps["agui"]))
    met = "met" if ratio <= TARGET_DISPATCH else "MISSED"
    lines += ["", f"median of the {results.rounds} pairs' ratios (pyclient / JS loop, same round): {paired:.2f}×",
              f"target: pyclient ≤ {TARGET_DISPATCH:.1f}× the JS loop (ratio of the medians): {ratio:.2f}×: {met}"]
    return "\n".join(lines)
