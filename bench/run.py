"""Every benchmark of issues 14 and 24 in one command: boot, six clients side by side, dispatch, long threads, main-thread blocking.

One dev server on 127.0.0.1 with the bench routes (bench/streams.py, with a `Timeline`) and
`@ag-ui/client` bundled from npm (bench/agui_client.py, built and cached on first use); one
headless Chromium. Every request that leaves 127.0.0.1 is aborted (boot: its fresh profiles
are not routed, so as not to slow the loads being timed) and, like a page error, makes the
command exit 1. Each part prints its table and its targets ("met" / "MISSED"):

1. boot (bench/boot.py): demo usable vs a bare PyScript page importing pydantic, cold and warm;
2. clients (bench/clients.py): `/bench/long?n=N` through @ag-ui/client, the JS floor, the
   Pyodide floors, pyclient's thread path and chat path;
3. dispatch (bench/dispatch.py): a run's last byte → the follow-up request, vs a JS loop on HttpAgent;
4. long thread (bench/longthread.py): time per round trip and memory over thousands of round trips;
6. memory and saves (bench/history.py, CPython, no browser): memory kept per round trip
   against the history's JSON bytes (tracemalloc), and a round trip at 1,000 against one at
   the start with no store, MemoryStore, FileStore and a save/load-only store (issue 26);
   saves-idb (bench/saves_idb.py): the same in Chromium, IndexedDbStore beside MemoryStore in
   one page;
5. blocking (bench/blocking.py): the page's main thread with the chat in a worker, on the main
   thread and bare PyScript (long tasks, timer delay, time to ready, answer time), on a second
   dev server with COOP/COEP; its fresh profiles are watched, not routed (routing turns the
   HTTP cache off), and an outside request is recorded and cannot resolve;
7. window (bench/window.py, issue 26): a restored thread of `--window-messages` messages in the
   chat, windowed and not, on the main thread and in a worker: time to its last screen, the
   list's nodes, frame gaps scrolling back to the top (its own dev server, worker pages on).

    python bench/run.py                                   # everything at full size (~10 min)
    python bench/run.py --only clients,dispatch --runs 5
    python bench/run.py --only clients --clients pyvalid,thread,chat --sizes 10000,40000
    python bench/run.py --only blocking --blocking-runs 5
    python bench/run.py --only window --window-messages 10000 --window-runs 3
    python bench/run.py --sizes 200,800 --runs 1 --boot-runs 1 --dispatch 3 --rounds 20 --per-send 10 \
        --blocking-runs 1 --blocking-deltas 200   # tiny
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import agui_client  # noqa: E402
from bench.blocking import Watch, report_blocking, report_frames, run_blocking  # noqa: E402
from bench.boot import report_boot, run_boot  # noqa: E402
from bench.chat import exit_status  # noqa: E402
from bench.clients import CLIENTS, report_clients, run_clients  # noqa: E402
from bench.dispatch import report_dispatch, run_dispatch  # noqa: E402
from bench.history import report_cpython, run_cpython  # noqa: E402
from bench.longthread import report_long_thread, run_long_thread  # noqa: E402
from bench.saves_idb import report_saves_idb, run_saves_idb  # noqa: E402
from bench.streams import Timeline, routes  # noqa: E402
from bench.window import report_window, run_window  # noqa: E402
from pyclient.testing import PyclientPage  # noqa: E402

PARTS = ("boot", "clients", "dispatch", "long", "blocking", "saves", "saves-idb", "window")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", default=",".join(PARTS), help=f"parts to run, comma-separated ({', '.join(PARTS)})")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds of the clients table (medians)")
    parser.add_argument("--clients", default=",".join(CLIENTS),
                        help=f"clients of the clients table, comma-separated ({', '.join(CLIENTS)})")
    parser.add_argument("--sizes", default="10000,20000,40000", help="text deltas per stream, comma-separated")
    parser.add_argument("--boot-runs", type=int, default=5, help="cold+warm samples of each page")
    parser.add_argument("--dispatch", type=int, default=30, help="round trips of each client (median)")
    parser.add_argument("--rounds", type=int, default=2_000, help="tool round trips of the long thread")
    parser.add_argument("--per-send", type=int, default=100,
                        help="round trips per send of the long thread; also the window compared (first vs last)")
    parser.add_argument("--blocking-runs", type=int, default=3, help="interleaved rounds of the blocking bench")
    parser.add_argument("--blocking-deltas", type=int, default=10_000,
                        help="text deltas of the blocking bench's streamed answer")
    parser.add_argument("--save-rounds", type=int, default=1_000,
                        help="round trips of the CPython memory and saves part (window: --per-send)")
    parser.add_argument("--idb-rounds", type=int, default=1_000,
                        help="round trips of the IndexedDB saves part, per store (window: --per-send)")
    parser.add_argument("--window-messages", type=int, default=10_000, help="messages of the window part's thread")
    parser.add_argument("--window-runs", type=int, default=3, help="interleaved rounds of the window part")
    parser.add_argument("--timeout", type=float, default=600, help="seconds one sample may take")
    args = parser.parse_args(argv)
    parts = [part for part in args.only.split(",") if part]
    if unknown := set(parts) - set(PARTS):
        parser.error(f"unknown part(s) {sorted(unknown)}: use {', '.join(PARTS)}")
    clients = [client for client in args.clients.split(",") if client]
    if unknown := set(clients) - set(CLIENTS):
        parser.error(f"unknown client(s) {sorted(unknown)}: use {', '.join(CLIENTS)}")

    tables: list[str] = []
    log = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    if "saves" in parts:  # CPython only: before any browser starts
        tables.append(report_cpython(run_cpython(args.save_rounds, window=min(args.per_send, args.save_rounds // 2),
                                                 memory_rounds=max(40, min(600, args.save_rounds)), log=log)))
        if parts == ["saves"]:
            print(tables[0])
            return 0
    from playwright.sync_api import sync_playwright

    from devserver.app import create_app
    from devserver.assets import build
    from devserver.background import ServerThread
    from devserver.chromium import launch_args

    build()
    timeline = Timeline()
    app = create_app(extra_routes=[*routes(timeline), agui_client.route()])
    timeout_ms = int(args.timeout * 1000)
    started = time.monotonic()
    with ServerThread(app) as server, sync_playwright() as playwright:
        if "boot" in parts:
            tables.append(report_boot(run_boot(playwright, server.url, runs=args.boot_runs, log=log)))
        browser = playwright.chromium.launch(**launch_args())
        try:
            # pyclient's own guard: aborts and records requests leaving 127.0.0.1, and uncaught errors.
            guard = PyclientPage(browser.new_context().new_page())
            page = guard.page
            if "clients" in parts:
                sizes = [int(n) for n in args.sizes.split(",") if n]
                tables.append(report_clients(run_clients(page, server.url, sizes, runs=args.runs, clients=clients,
                                                         timeout_ms=timeout_ms, log=log)))
            if "dispatch" in parts:
                tables.append(report_dispatch(run_dispatch(page, server.url, timeline, rounds=args.dispatch,
                                                           log=log)))
            if "long" in parts:
                tables.append(report_long_thread(run_long_thread(
                    page, server.url, timeline, rounds=args.rounds, per_send=args.per_send,
                    window=min(args.per_send, args.rounds), timeout_ms=timeout_ms, log=log)))
            if "saves-idb" in parts:
                tables.append(report_saves_idb(run_saves_idb(
                    page, server.url, rounds=args.idb_rounds, window=min(args.per_send, args.idb_rounds // 2),
                    log=log)))
        finally:
            browser.close()
        if "blocking" in parts:
            watch = Watch()
            with ServerThread(create_app(coi=True, extra_routes=routes())) as isolated:
                blocking = run_blocking(playwright, isolated.url, runs=args.blocking_runs,
                                        deltas=args.blocking_deltas, watch=watch,
                                        timeout_ms=timeout_ms, log=log)
            tables.append(report_blocking(blocking) + "\n\n" + report_frames(blocking))
            guard.outside += watch.outside
            guard.errors += watch.errors
        if "window" in parts:  # each sample a guarded page of its own: a stray request fails it
            from devserver.app import WEB
            from pyclient.testing._worker_pages import WorkerPages

            with ServerThread(WorkerPages(create_app(), WEB)) as pages:
                tables.append(report_window(run_window(playwright, pages.url, messages=args.window_messages,
                                                       runs=args.window_runs, timeout_ms=timeout_ms, log=log)))
    print(f"\n{'=' * 100}\n".join(tables))
    return exit_status(guard, started)


if __name__ == "__main__":
    sys.exit(main())
