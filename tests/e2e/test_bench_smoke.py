"""The chat benchmark (bench/chat.py) at tiny sizes, so the harness cannot rot unnoticed.

It runs every row on both paths in this test's guarded page (any request leaving 127.0.0.1
fails the test) against the dev server with the benchmark routes. Figures are never asserted
as timings: only that there are figures, and that each sample did the whole job (the thread's
final text and every tool result; on the chat path, the chat's element showing them).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bench.chat import PATHS, default_cases, report, run_bench
from bench.streams import routes
from devserver.background import ServerThread


@pytest.fixture(scope="module")
def bench_url(runtime) -> Iterator[str]:
    from devserver.app import create_app

    with ServerThread(create_app(runtime=runtime, extra_routes=routes())) as server:
        yield server.url


def test_the_bench_harness_runs_at_tiny_sizes(page, bench_url):
    cases = default_cases([50, 200], parallel=20, blob_bytes=20_000, deltas=200)
    results = run_bench(page, bench_url, cases, runs=1, warm_up=False, timeout_ms=120_000)

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
