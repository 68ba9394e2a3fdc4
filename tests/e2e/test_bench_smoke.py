"""The benchmarks (bench/) at tiny sizes, so the harnesses cannot rot unnoticed.

Every part runs in one guarded bench page, booted once for the module (any request leaving
127.0.0.1 or an uncaught page error fails the test that saw it), against the dev server with
the benchmark routes and `@ag-ui/client` bundled from npm (built once per user by
`bench.agui_client.build()`, cached like the runtime). Figures are never asserted as timings:
only that there are figures, that each sample did the whole job (the final text, every tool
result, the round trips the server saw) and that the tables print. (Boot, bench/boot.py, needs
fresh browser profiles and is left to the bench command.) The main-thread blocking bench
(bench/blocking.py) makes fresh profiles itself, on a cross-origin isolated server of its own:
one round of three of its pages (worker, main thread, bare; the bare worker page is the bare
page's code in a worker) at 50 deltas.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from bench import agui_client
from bench.blocking import (
    CHAT_PAGES,
    LABELS,
    PAGES,
    Watch,
    describe_frame,
    long_task_breakdown,
    report_blocking,
    report_frames,
    run_blocking,
)
from bench.chat import (
    PATHS,
    BenchError,
    Case,
    default_cases,
    open_bench_page,
    report,
    run_bench,
)
from bench.clients import CLIENTS, measure_client, report_clients, run_clients
from bench.dispatch import DISPATCH_CLIENTS, report_dispatch, run_dispatch
from bench.longthread import report_long_thread, run_long_thread
from bench.saves_idb import report_saves_idb, run_saves_idb
from bench.streams import Timeline, routes
from devserver.background import ServerThread
from pyclient.testing import PyclientPage


@pytest.fixture(scope="module")
def timeline() -> Timeline:
    return Timeline()


@pytest.fixture(scope="module")
def bench_url(runtime, timeline) -> Iterator[str]:
    from devserver.app import create_app

    # npm install + esbuild on a fresh machine (seconds), nothing once cached.
    bundle = agui_client.build()
    with ServerThread(create_app(runtime=runtime, extra_routes=[*routes(timeline), agui_client.route(bundle)])) as server:
        yield server.url


@pytest.fixture(scope="module")
def module_page(browser, bench_url, watch_callback_errors) -> Iterator[PyclientPage]:
    """One bench page for the module (Pyodide boots once), guarded by pyclient's `PyclientPage`."""
    context = browser.new_context()
    watch_callback_errors(context)
    guard = PyclientPage(context.new_page())
    open_bench_page(guard.page, bench_url)
    yield guard
    context.close()


@pytest.fixture
def page(module_page) -> Iterator[Any]:
    """The module's bench page, checked after each test (and its findings reset)."""
    guard = module_page
    yield guard.page
    try:
        guard.check()
    finally:
        guard.outside.clear(), guard.errors.clear()


def test_the_chat_bench_runs_at_tiny_sizes(page, bench_url):
    cases = default_cases([50, 200], parallel=20, blob_bytes=20_000, deltas=200)
    results = run_bench(page, bench_url, cases, runs=1, warm_up=False, timeout_ms=120_000, fresh=False)

    for case in cases:
        for path in PATHS:
            [sample] = results.samples[(case.label, path)]
            assert sample.sent > 0 and sample.gap_timeout >= 0 and sample.gap_frame >= 0
            assert sample.tool_results == case.calls  # 0, 20 or 1
            if path == "chat":
                # The chat showed the final text and, for the parallel row, all 20 results.
                assert sample.shown_in_dom and sample.shown is not None and sample.shown >= sample.sent
            else:
                assert sample.shown is None
    table = report(results)
    for case in cases:
        assert case.label in table
    assert "text, 200 deltas" in table and "20 parallel calls" in table and "20 KB args in 200 deltas" in table
    assert "t200 / t50: thread" in table and "chat ≤ 1.3× thread" in table
    assert "longest frame on the chat path while 20 cards appear ≤ 200 ms" in table
    assert all(s.longest_task >= 0 and s.longest_render >= 0 for samples in results.samples.values() for s in samples)


def test_the_clients_table_compares_all_six_clients_on_the_same_stream(page, bench_url):
    results = run_clients(page, bench_url, [50, 200], runs=1, warm_up=False, timeout_ms=120_000, fresh=False)

    # measure_client checked each sample's text (and a floor's event count) before it counted.
    assert set(results.samples) == {(n, client) for n in (50, 200) for client in CLIENTS}
    assert all(len(ms) == 1 and ms[0] > 0 for ms in results.samples.values())
    table = report_clients(results)
    for label in CLIENTS.values():  # a row per size, and one in the growth table
        assert len(re.findall(re.escape(label) + r" +\d", table)) == 3
    assert "t200/t50" in table
    assert "thread ≤ 1.5× validated Pyodide floor: " in table and "thread t200/t50 ≤ 3.0: " in table
    assert "chat ≤ 1.3× thread: " in table
    assert table.count(": met") + table.count(": MISSED") == 3


@dataclass(frozen=True)
class _Mismatched(Case):
    """A text case that expects `n` deltas' text from a stream of `served` deltas."""

    served: int = 0

    @property
    def url(self) -> str:
        return f"/bench/long?n={self.served}"


def test_a_client_ending_with_another_text_is_an_error_not_a_figure(page):
    wrong = _Mismatched("text, 31 deltas", "long", (("n", 31),), served=30)
    for client in ("agui", "pyvalid", "thread"):
        with pytest.raises(BenchError, match="not the stream's"):
            measure_client(page, wrong, client)


def test_dispatch_times_each_round_trip_on_the_server_for_both_clients(page, bench_url, timeline):
    results = run_dispatch(page, bench_url, timeline, rounds=3, warm_up=0, fresh=False)

    for client in DISPATCH_CLIENTS:
        assert len(results.gaps[client]) == 3 and all(gap > 0 for gap in results.gaps[client])
        # Each round trip: the run with the call, then its follow-up, both marked for the server.
        for i in range(3):
            visits = timeline.visits[f"dispatch-{client}-{i}"]
            assert [v.follow_up for v in visits] == [False, True] and visits[0].finished > 0
    table = report_dispatch(results)
    assert "pyclient Thread.send" in table and "JS loop on @ag-ui/client HttpAgent" in table
    assert "target: pyclient ≤ 1.5× the JS loop (ratio of the medians): " in table and "pairs' ratios" in table


def test_the_long_thread_does_every_round_trip_in_one_thread(page, bench_url, timeline):
    results = run_long_thread(page, bench_url, timeline, rounds=12, per_send=4, window=4, timeout_ms=120_000,
                              fresh=False)

    # 12 follow-ups reached the server, each request body larger than the one before.
    assert len(results.gaps) == 12 and all(gap > 0 for gap in results.gaps)
    assert results.bodies == sorted(results.bodies) and len(results.bodies) == 12 + 3
    assert len(results.heap) == len(results.wasm) == len(results.send_ms) == 3
    assert results.history_bytes > 0 and not math.isnan(results.growth(results.heap))
    table = report_long_thread(results)
    assert "round trips 1–4" in table and "round trips 9–12" in table
    assert "JS heap (after GC)" in table and "wasm memory" in table and "history's own bytes" in table
    assert "target: last 4 ≤ 1.5× first 4: " in table and "target: memory growth ≤ history's bytes: " in table


def test_the_indexeddb_saves_bench_keeps_both_threads_and_restores_them(page, bench_url):
    results = run_saves_idb(page, bench_url, rounds=8, window=2, fresh=False)

    # Both threads did every round trip, and a new thread restored each from its store whole
    # (IndexedDB included: records appended per save, folded on load).
    assert set(results["stores"]) == {"no store", "MemoryStore", "IndexedDbStore"}
    assert results["stores"]["no store"]["messages"] == 32 and results["stores"]["no store"]["restored"] is None
    for label in ("MemoryStore", "IndexedDbStore"):
        sample = results["stores"][label]
        assert sample["status"] == "idle" and sample["error"] is None and sample["messages"] == 32
        assert sample["restored"] is True and sample["restored_messages"] == 32
        assert sample["restored_last_result"] == "echo 7"
        assert sample["first"] > 0 and sample["last"] > 0
    table = report_saves_idb(results)
    assert "MemoryStore" in table and "IndexedDbStore" in table and "IndexedDB / Memory" in table
    assert "target: a round trip at 8 <= 1.5x one at the start, with each store" in table


@pytest.fixture(scope="module")
def isolated_bench_url(runtime) -> Iterator[str]:
    """The dev server with COOP/COEP (worker pages) and the benchmark routes."""
    from devserver.app import create_app

    with ServerThread(create_app(runtime=runtime, coi=True, extra_routes=routes())) as server:
        yield server.url


def test_the_blocking_bench_measures_worker_and_main_thread_pages_side_by_side(playwright, isolated_bench_url):
    watch = Watch()
    pages = ("worker", "main")  # the bare pages are measured the same way (one boot less each)
    results = run_blocking(playwright, isolated_bench_url, runs=1, deltas=50, pages=pages, warm_up=False,
                           watch=watch, timeout_ms=120_000)

    assert not watch.outside and not watch.errors, (watch.outside, watch.errors[:3])
    assert set(results.samples) == set(pages) and set(pages) < set(PAGES)
    for name, [sample] in results.samples.items():
        # Ready after the page's script ended, which began after navigation; cold and warm.
        for ready, script in ((sample.ready_cold, sample.script_cold), (sample.ready_warm, sample.script_warm)):
            assert 0 < script[0] <= script[1] <= script[2] <= ready
        assert sample.boot_cold.tbt >= 0 and sample.boot_warm.longest >= 0
        if name in CHAT_PAGES:  # _through_chat checked the answer, the heading and the one click
            assert sample.trip_ms and sample.trip_ms > 0 and sample.answer_ms and sample.answer_ms > 0
            assert sample.trip is not None and sample.answer is not None
        else:
            assert sample.trip is None and sample.answer is None
    table = report_blocking(results)
    for page in pages:
        assert len(re.findall(re.escape(LABELS[page]) + r" +[\d—]", table)) == 3  # blocking, times, phases
    assert "50-delta answer" in table and "ratios worker / main" in table and "targets, worker mode:" in table
    assert table.count(": met") + table.count(": MISSED") == 9
    frames = report_frames(results)
    assert f"{LABELS['worker']}, cold nav → ready, run 1: " in frames
    assert f"{LABELS['worker']}, 50-delta answer, run 1: " in frames


def test_the_blocking_bench_says_what_a_long_task_and_a_long_frame_did():
    def event(name, ts, dur, tdur=None, **data):
        return {"ph": "X", "pid": 1, "tid": 2, "name": name, "ts": ts, "dur": dur, "tdur": tdur or dur,
                "args": {"data": data}}

    trace = [{"ph": "M", "pid": 1, "tid": 2, "name": "thread_name", "args": {"name": "CrRendererMain"}},
             event("RunTask", 0, 120_000, 40_000), event("FunctionCall", 0, 100_000, url="http://x/renderer.js",
                                                          functionName="apply", lineNumber=9),
             event("Layout", 10_000, 80_000), event("RunTask", 200_000, 30_000)]
    [task] = long_task_breakdown(trace)
    assert task["ms"] == 120 and task["cpu"] == 40
    assert task["what"] == [("Layout", 80), ("FunctionCall", 20), ("RunTask", 20)]
    assert task["scripts"] == ["apply renderer.js:9 100 ms"]
    frame = {"duration": 230, "blocking": 180, "layout": 3, "scripts": [
        {"duration": 225, "invoker": "Worker.onmessage", "type": "event-listener", "source": "", "fn": "",
         "forced": 190}]}
    assert describe_frame(frame) == ("230 ms (blocking 180): script 225 ms, event-listener 'Worker.onmessage' in "
                                     "(no URL), of which forced style+layout 190 ms; style+layout 3 ms")


def test_the_sandbox_bench_times_a_cold_a_warm_and_a_busy_sandbox(playwright, runtime):
    from bench.sandbox import report, run_round
    from devserver.app import create_app

    with ServerThread(create_app(runtime=runtime)) as server:
        figures = run_round(playwright, server.url, work=200_000)
    assert set(figures) == {"cold", "second", "warm", "overhead", "busy", "longest", "tbt", "late"}
    assert figures["cold"] > figures["warm"] > 0 and 0 <= figures["overhead"] <= figures["warm"]
    table = report([figures])
    assert "warm call overhead ≤ 50 ms:" in table and "main-thread TBT ≤ 50 ms during a run:" in table
