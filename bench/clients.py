"""Six clients side by side on the same text streams: `@ag-ui/client`, two floors, pyclient.

One page (`web/bench/chat.html`), one Chromium, one server, the same byte-identical
`/bench/long?n=N` stream for every client and sample (bench/streams.py). Each sample is timed
page-side with `performance.now()` and checked before it counts: the text the client ends with
is exactly the stream's text (and a floor counted every event); anything else raises
`BenchError`, never a figure.

| client | what is timed |
| --- | --- |
| `agui` | `@ag-ui/client`'s `HttpAgent.runAgent()` (npm, bundled by bench/agui_client.py) |
| `jsfloor` | fetch reader, SSE split, `JSON.parse`, join: the least JS can do |
| `pyfloor` | the same in the page's Python with `json.loads` |
| `pyvalid` | the Python floor with ag-ui's `TypeAdapter(Event).validate_json` instead |
| `thread` | pyclient `await thread.send()` (bench/chat.py's thread path) |
| `chat` | the same with `pyclient.browser.Chat` attached, until it shows the text (chat path) |

`run_clients(page, base_url, sizes)` measures, `report_clients(results)` prints the table with
the targets (`python bench/run.py` runs it with everything else).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.chat import BenchError, Case, count_label, measure, open_bench_page

__all__ = ["CLIENTS", "TARGETS", "ClientResults", "measure_client", "report_clients", "run_clients", "text_case"]

CLIENTS = {
    "agui": "@ag-ui/client HttpAgent.runAgent",
    "jsfloor": "JS floor (reader, SSE, JSON.parse)",
    "pyfloor": "Pyodide floor (json.loads)",
    "pyvalid": "Pyodide floor + validate_json",
    "thread": "pyclient Thread.send",
    "chat": "pyclient Thread.send + Chat",
}

TARGETS = {"thread/pyvalid": 1.5, "thread growth": 3.0, "chat/thread": 1.3}
"""At the largest size: thread ≤ 1.5× the validated Pyodide floor, chat ≤ 1.3× thread; and the
thread's t_largest/t_smallest ≤ 3.0 (for 10k → 40k: 4× the events in at most 3× the time)."""


def text_case(n: int) -> Case:
    return Case(f"text, {count_label(n)} deltas", "long", (("n", n),))


def measure_client(page: Any, case: Case, client: str, *, timeout_ms: int = 600_000) -> float:
    """One checked sample of `client` reading `case` (a text stream): its ms.

    Raises:
        BenchError: the client failed or ended with another text (or, for a floor, another
            number of events) than the stream's.
    """
    if client in ("thread", "chat"):
        return measure(page, case, client, timeout_ms=timeout_ms).elapsed
    out = page.evaluate("spec => window.measureClient(spec)", {"client": client, "url": case.url, "timeoutMs": timeout_ms})
    problems = []
    if out["error"]:
        problems.append(out["error"])
    elif out["text"] != case.final_text:
        text = out["text"]
        problems.append(f"the text is {None if text is None else text[:80] + '…'!r}, not the stream's")
    if out["events"] is not None and out["events"] != case.events:
        problems.append(f"{out['events']} events, the stream has {case.events}")
    if problems:
        raise BenchError(f"{case.label}, {client}: " + "; ".join(problems))
    return float(out["ms"])


@dataclass
class ClientResults:
    sizes: list[int]
    runs: int
    clients: list[str]
    samples: dict[tuple[int, str], list[float]] = field(default_factory=dict)
    browser: str = ""

    def median(self, n: int, client: str) -> float:
        return statistics.median(self.samples[(n, client)])


def run_clients(page: Any, base_url: str, sizes: Sequence[int] = (10_000, 20_000, 40_000), *, runs: int = 3,
                clients: Sequence[str] = tuple(CLIENTS), warm_up: bool = True, timeout_ms: int = 600_000,
                fresh: bool = True, log: Callable[[str], None] = lambda line: None) -> ClientResults:
    """Open the bench page on `base_url` (see `bench.chat.open_bench_page` for `fresh`) and measure
    every client at every size `runs` times, interleaved (the client order rotates from round to round)."""
    open_bench_page(page, base_url, fresh=fresh)
    results = ClientResults(list(sizes), runs, list(clients),
                            browser=page.context.browser.version if page.context.browser else "")
    if warm_up:  # imports, JIT and the server's stream cache, at a tenth of each size
        for n in sizes:
            for client in clients:
                measure_client(page, text_case(max(1, n // 10)), client, timeout_ms=timeout_ms)
    for run in range(runs):
        order = list(clients[run % len(clients):]) + list(clients[:run % len(clients)])
        for n in sizes:
            for client in order:
                ms = measure_client(page, text_case(n), client, timeout_ms=timeout_ms)
                results.samples.setdefault((n, client), []).append(ms)
                log(f"run {run + 1}/{runs} text {count_label(n):>5} {client:<8} {ms:9.1f} ms")
    return results


def _target(name: str, ratio: float) -> str:
    limit = TARGETS[name]
    return f"{ratio:.2f}× (target ≤ {limit:.1f}×): {'met' if ratio <= limit else 'MISSED'}"


def report_clients(results: ClientResults) -> str:
    """Per size, each client's median ms, events/s and ratios to the validated Pyodide floor and
    to @ag-ui/client; then t_n/t_smallest per client and the targets."""
    present = set(results.clients)
    lines = [f"clients side by side on /bench/long?n=N: median of {results.runs} interleaved run(s), "
             f"headless Chromium {results.browser}, everything on 127.0.0.1", "",
             f"{'size':<6}{'client':<38}{'ms':>10}{'events/s':>12}{'× pyvalid':>11}{'× agui':>9}"]
    for n in results.sizes:
        events = text_case(n).events
        for client in results.clients:
            ms = results.median(n, client)
            valid = f"{ms / results.median(n, 'pyvalid'):.2f}×" if "pyvalid" in present else "-"
            agui = f"{ms / results.median(n, 'agui'):.3f}×" if "agui" in present else "-"
            lines.append(f"{count_label(n):<6}{CLIENTS[client]:<38}{ms:>10.1f}{events / ms * 1000:>12,.0f}"
                         f"{valid:>11}{agui:>9}")
        lines.append("")
    smallest, largest = min(results.sizes), max(results.sizes)
    if largest > smallest:
        others = [n for n in results.sizes if n != smallest]
        lines.append(f"{'growth':<44}" + "".join(f"{f't{count_label(n)}/t{count_label(smallest)}':>14}" for n in others)
                     + f"   (linear: {largest / smallest:.2f}×)")
        for client in results.clients:
            lines.append(f"{CLIENTS[client]:<44}" + "".join(
                f"{results.median(n, client) / results.median(smallest, client):>13.2f}×" for n in others))
        lines.append("")
    lines.append(f"targets at {count_label(largest)} deltas:")
    if {"thread", "pyvalid"} <= present:
        lines.append("  thread ≤ 1.5× validated Pyodide floor: "
                     + _target("thread/pyvalid", results.median(largest, "thread") / results.median(largest, "pyvalid")))
    if "thread" in present and largest > smallest:
        lines.append(f"  thread t{count_label(largest)}/t{count_label(smallest)} ≤ 3.0: "
                     + _target("thread growth", results.median(largest, "thread") / results.median(smallest, "thread")))
    if {"thread", "chat"} <= present:
        lines.append("  chat ≤ 1.3× thread: "
                     + _target("chat/thread", results.median(largest, "chat") / results.median(largest, "thread")))
    lines.append("")
    lines.append("ms: page-side, from the call until the client holds the whole text (pyclient: `send()` returned; "
                 "+ Chat: and the chat shows it).")
    return "\n".join(line.rstrip() for line in lines)
