"""IndexedDB saves in Chromium: a round trip with saves at the start vs at 1,000 round trips, beside `MemoryStore` (issue 26).

The bench page's `window.bench.saves(rounds, window, name)` (web/bench/chat.py) runs three
threads in the same page, one with no store (what the round trip itself costs in Pyodide), one
kept in a `MemoryStore`, one in an `IndexedDbStore` (a fresh IndexedDB store per sample,
deleted after it), each doing `rounds` tool round trips over an in-page transport with
prebuilt responses (bench/history.py's CPython bench, in Pyodide: a call of `bench_echo`, its
result in the follow-up, a short text), taking turns (each goes first in turn) so that a slow
moment of the machine hits all three. A round trip is `send()` then `saved()`. Ten unrecorded
round trips on three other threads warm up first. Printed: the median of the first and of the
last `window` round trips per thread, their ratio, and IndexedDB / MemoryStore at each end.

The sample did the whole job when the threads are idle without error with four messages per
round trip, and each kept one, restored from its store by a new thread (as after a reload),
has them all, the last tool result included; otherwise `BenchError`.

```python
from bench.saves_idb import report_saves_idb
print(report_saves_idb({"rounds": 4, "window": 2, "stores": {
    "no store": {"first": 1.0, "last": 1.1, "mean_last": 1.2},
    "MemoryStore": {"first": 2.0, "last": 2.2, "mean_last": 2.3},
    "IndexedDbStore": {"first": 6.0, "last": 6.6, "mean_last": 7.0}}}).splitlines()[-3])
```
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bench.chat import BenchError, open_bench_page

__all__ = ["TARGET", "report_saves_idb", "run_saves_idb"]

TARGET = 1.5
"""A round trip with saves at the end at most 1.5x one at the start, with each store."""

_samples = 0


def run_saves_idb(page: Any, base_url: str, *, rounds: int = 1_000, window: int = 100,
                  fresh: bool = True, log: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """One sample on the bench page (see `bench.chat.open_bench_page` for `fresh`).

    Raises:
        BenchError: a thread did not end idle with every message, or did not restore them all.
    """
    global _samples
    if not 0 < window <= rounds // 2:
        raise ValueError(f"window ({window}) must be between 1 and half the round trips ({rounds}).")
    open_bench_page(page, base_url, fresh=fresh)
    _samples += 1
    name = f"bench-saves-{_samples}"
    log(f"saves-idb: {rounds} round trips with MemoryStore and IndexedDbStore side by side")
    r = json.loads(page.evaluate("([n, w, name]) => window.bench.saves(n, w, name)", [rounds, window, name]))
    problems = []
    for label, s in r["stores"].items():
        want = 4 * rounds
        if s["status"] != "idle" or s["error"] or s["messages"] != want:
            problems.append(f"{label}: ended {s['status']!r} (error {s['error']!r}) with {s['messages']} "
                            f"messages, expected {want}")
        if label == "no store":
            continue
        if not s["restored"] or s["restored_messages"] != want or s["restored_last_result"] != f"echo {rounds - 1}":
            problems.append(f"{label}: restored {s['restored']} with {s['restored_messages']} messages and last "
                            f"result {s['restored_last_result']!r}, expected {want} and 'echo {rounds - 1}'")
    if problems:
        raise BenchError("saves-idb: " + "; ".join(problems))
    for label, s in r["stores"].items():
        log(f"saves-idb: {label}: {s['first']:.2f} ms at the start, {s['last']:.2f} ms at {rounds}")
    return r


def report_saves_idb(r: dict[str, Any]) -> str:
    n, w = r["rounds"], r["window"]
    stores = r["stores"]
    lines = [f"IndexedDB saves in Chromium (Pyodide): three threads side by side in one page, {n:,} tool round trips "
             "each over an in-page transport; a round trip is send() and saved() (median ms)", "",
             f"{'store':<18}{f'first {w}':>10}{f'last {w}':>10}{'ratio':>8}{'mean last':>11}"]
    for label, s in stores.items():
        ratio = s["last"] / s["first"]
        lines.append(f"{label:<18}{s['first']:>10.2f}{s['last']:>10.2f}{ratio:>7.2f}x{s['mean_last']:>11.2f}  "
                     f"{'met' if ratio <= TARGET else 'MISSED'}")
    memory, idb = stores.get("MemoryStore"), stores.get("IndexedDbStore")
    if memory and idb:
        lines.append(f"{'IndexedDB / Memory':<18}{idb['first'] / memory['first']:>9.2f}x"
                     f"{idb['last'] / memory['last']:>9.2f}x")
    lines.append(f"target: a round trip at {n:,} <= {TARGET:.1f}x one at the start, with each store")
    lines.append("the IndexedDB rows include the store's writes (one entry a record, a whole snapshot when the "
                 "records outgrow it); MemoryStore's are pyclient's own save work")
    return "\n".join(lines)
