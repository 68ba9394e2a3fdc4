"""Long threads and dispatch on CPython: pyclient's own work per round trip as the history grows.

One `Thread` talks to an in-process transport whose responses are prebuilt bytes (the
"server" does constant work: it never reads the request). Each round trip is one
`await thread.send(text)`: the first request is answered with a call of the client tool
`bench_echo`, the handler runs in the page's place, the follow-up request carries its result
and is answered with a short text. So each round trip adds four messages (user, assistant with
its tool call, tool result, assistant text) and sends two requests whose bodies carry the
whole history.

Printed:

- time per round trip (median) over the first 100 and over round trips N-100..N, and their
  ratio (the target: at most 1.5x);
- dispatch: from the moment the transport hands over the chunk with RUN_FINISHED (the run
  ends with the client tool call) to the follow-up request reaching the transport (median);
- with `--memory`, a second pass under tracemalloc: memory growth per round trip against the
  growth of the request body (the history's own JSON bytes) per round trip.

```sh
PYTHONPATH=$PWD .venv/bin/python bench/history.py --rounds 2000
PYTHONPATH=$PWD .venv/bin/python bench/history.py --rounds 2000 --memory
PYTHONPATH=$PWD .venv/bin/python bench/history.py --rounds 2000 --store   # saved at every checkpoint
```
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import statistics
import time
import tracemalloc
from array import array
from collections.abc import AsyncIterator, Callable
from typing import Any

from pyclient import AbortSignal, Agent, MemoryStore, Request, Transport, client_tool
from pyclient._binding._platform import Platform


@client_tool
def bench_echo(index: int) -> str:
    """Echo the index back."""
    return f"echo {index}"


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e, separators=(",", ":")).encode() + b"\n\n" for e in events)


class _Transport(Transport):
    """`MockTransport` without its list of every request (it would keep every body: O(n^2) bytes)."""

    def __init__(self, handler: Callable[[Request], Any]) -> None:
        self.handler = handler

    async def stream(self, request: Request, signal: AbortSignal) -> AsyncIterator[bytes]:
        response = self.handler(request)
        if isinstance(response, bytes):
            yield response
            return
        async for chunk in response:
            yield chunk


class _Server:
    """Answers request 2k with a call of `bench_echo`, request 2k+1 with a text; times dispatch.

    Every response is built before the timing starts, so the "server" only hands bytes over.
    """

    def __init__(self, rounds: int) -> None:
        self.count = 0
        self.finished_at = 0.0
        # Preallocated: lists would grow by an int or a float object per request, which the
        # memory pass (tracemalloc) would count as the thread's (about 170 B a round trip).
        self.dispatch = array("d", bytes(8 * rounds))
        self.body_sizes = array("q", bytes(16 * rounds))
        self.transport = _Transport(self.handle)
        self.calls = [self._call(i) for i in range(rounds)]
        self.texts = [self._text(i) for i in range(rounds)]

    def handle(self, request: Request) -> Any:
        now = time.perf_counter()
        n = self.count
        self.count += 1
        self.body_sizes[n] = len(request.body)
        if n % 2:  # the follow-up: it arrived `now`, the call's run ended at `finished_at`
            self.dispatch[n // 2] = now - self.finished_at
            return self.texts[n // 2]
        head, last = self.calls[n // 2]
        server = self

        async def chunks() -> Any:
            yield head
            server.finished_at = time.perf_counter()
            yield last

        return chunks()

    @staticmethod
    def _call(i: int) -> tuple[bytes, bytes]:
        head = _sse(
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}a"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"a{i}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"a{i}", "delta": "Calling the tool."},
            {"type": "TEXT_MESSAGE_END", "messageId": f"a{i}"},
            {"type": "TOOL_CALL_START", "toolCallId": f"c{i}", "toolCallName": "bench_echo",
             "parentMessageId": f"a{i}"},
            {"type": "TOOL_CALL_ARGS", "toolCallId": f"c{i}", "delta": json.dumps({"index": i})},
            {"type": "TOOL_CALL_END", "toolCallId": f"c{i}"},
        )
        return head, _sse({"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}a"})

    @staticmethod
    def _text(i: int) -> bytes:
        return _sse(
            {"type": "RUN_STARTED", "threadId": "t", "runId": f"r{i}b"},
            {"type": "TEXT_MESSAGE_START", "messageId": f"b{i}", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": f"b{i}", "delta": f"The tool answered echo {i}."},
            {"type": "TEXT_MESSAGE_END", "messageId": f"b{i}"},
            {"type": "RUN_FINISHED", "threadId": "t", "runId": f"r{i}b"},
        )


async def _run(rounds: int, memory: bool, store: bool = False, collect_at: tuple[int, ...] = ()) -> dict[str, Any]:
    """`collect_at`: after these round trips (counted from 1), a full collection before memory is
    read: what is kept, not the cyclic garbage that happens to wait for the collector (up to
    ~200 B a round trip either way, depending on where its thresholds fall)."""
    server = _Server(rounds)
    agent = Agent("bench", "http://127.0.0.1/agent", client_tools=[bench_echo], transport=server.transport,
                  platform=Platform())
    thread = agent.thread(thread_id="t", store=MemoryStore() if store else None)
    times = array("d", bytes(8 * rounds))  # preallocated, as the server's figures
    sizes = array("q", bytes(8 * rounds))
    gc.collect()
    if memory:
        tracemalloc.start()
    for i in range(rounds):
        start = time.perf_counter()
        await thread.send(f"call the tool with {i}")
        times[i] = time.perf_counter() - start
        assert thread.run_status == "idle", thread.error
        if memory:
            if i + 1 in collect_at:
                gc.collect()
            sizes[i] = tracemalloc.get_traced_memory()[0]
    if memory:
        tracemalloc.stop()
    assert len(thread.messages) == 4 * rounds
    return {"times": times, "sizes": sizes, "dispatch": server.dispatch, "bodies": server.body_sizes}


def _window(values: list[float], start: int, end: int) -> float:
    return statistics.median(values[start:end])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument("--memory", action="store_true", help="also measure memory growth (tracemalloc pass)")
    parser.add_argument("--store", action="store_true", help="keep the thread in a MemoryStore (saved at each checkpoint)")
    args = parser.parse_args()
    rounds = args.rounds
    window = min(100, rounds // 2)
    result = asyncio.run(_run(rounds, memory=False, store=args.store))
    times, dispatch, bodies = result["times"], result["dispatch"], result["bodies"]
    early = _window(times, 0, window) * 1e3
    late = _window(times, rounds - window, rounds) * 1e3
    print(f"long thread on CPython: {rounds} round trips (send -> tool call -> follow-up -> text), "
          "in-process transport" + (", kept in a MemoryStore" if args.store else ""))
    print(f"  per round trip, first {window}: {early:.3f} ms   last {window}: {late:.3f} ms   "
          f"ratio {late / early:.2f}x (target <= 1.5x: {'met' if late / early <= 1.5 else 'MISSED'})")
    d_early = _window(dispatch, 0, window) * 1e3
    d_late = _window(dispatch, rounds - window, rounds) * 1e3
    print(f"  dispatch (RUN_FINISHED chunk handed over -> follow-up request), first {window}: "
          f"{d_early:.3f} ms   last {window}: {d_late:.3f} ms")
    print(f"  request body at the end: {bodies[-1]:,} bytes "
          f"(+{(bodies[-1] - bodies[-1 - 2 * window]) / window:,.0f} bytes per round trip)")
    if args.memory:
        result = asyncio.run(_run(rounds, memory=True, collect_at=(window, rounds)))
        sizes, bodies = result["sizes"], result["bodies"]
        span = rounds - window
        growth = (sizes[-1] - sizes[window - 1]) / span
        body_growth = (bodies[-1] - bodies[2 * window - 1]) / span
        print(f"  memory (tracemalloc) growth per round trip: {growth:,.0f} bytes; the history's JSON grows "
              f"{body_growth:,.0f} bytes per round trip: {growth / body_growth:.2f}x "
              f"(target <= 1x: {'met' if growth <= body_growth else 'MISSED'})")


if __name__ == "__main__":
    main()


# -- issue 26: memory per round trip, and save cost per store, side by side (bench/run.py) ------


class WholeStore:
    """A store with only `load`/`save`/`delete` (a custom store as documented before records):
    every save writes the whole snapshot, as every store did before."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}

    async def load(self, key: str) -> dict[str, Any] | None:
        return json.loads(self._data[key]) if key in self._data else None

    async def save(self, key: str, data: dict[str, Any]) -> None:
        self._data[key] = json.dumps(data)

    async def delete(self, key: str) -> None:
        self._data.pop(key, None)


class _Counted:
    """A store's writes counted in JSON bytes (the load-independent half of the save cost)."""

    def __init__(self, store: Any) -> None:
        self.store = store
        self.written = 0

    async def load(self, key: str) -> Any:
        return await self.store.load(key)

    async def save(self, key: str, data: dict[str, Any]) -> None:
        self.written += len(json.dumps(data))
        await self.store.save(key, data)

    async def delete(self, key: str) -> None:
        await self.store.delete(key)


class _CountedRecords(_Counted):
    async def append(self, key: str, record: dict[str, Any]) -> None:
        self.written += len(json.dumps(record))
        await self.store.append(key, record)


async def _timed(rounds: int, store: Any) -> dict[str, Any]:
    server = _Server(rounds)
    agent = Agent("bench", "http://127.0.0.1/agent", client_tools=[bench_echo], transport=server.transport,
                  platform=Platform())
    counted = None if store is None else (_CountedRecords if hasattr(store, "append") else _Counted)(store)
    thread = agent.thread(thread_id="t", store=counted)
    times: list[float] = []
    written: list[int] = []
    for i in range(rounds):
        start = time.perf_counter()
        before = counted.written if counted is not None else 0
        await thread.send(f"call the tool with {i}")
        if counted is not None:
            await thread.saved()
        times.append(time.perf_counter() - start)
        written.append((counted.written if counted is not None else 0) - before)
        assert thread.run_status == "idle", thread.error
    return {"times": times, "bodies": server.body_sizes, "written": written}


def run_cpython(rounds: int = 1_000, window: int = 100, memory_rounds: int = 600,
                log: Callable[[str], None] = lambda line: None) -> dict[str, Any]:
    """Issue 26's CPython cases: memory per round trip vs the history's JSON, and a round trip
    at `rounds` vs one at the start, with no store and with each store."""
    import shutil
    import tempfile

    from pyclient import FileStore

    out: dict[str, Any] = {"rounds": rounds, "window": window}
    start = min(100, memory_rounds // 4)
    result = asyncio.run(_run(memory_rounds, memory=True, collect_at=(start, memory_rounds)))
    sizes, bodies = result["sizes"], result["bodies"]
    span = memory_rounds - start
    out["memory"] = (sizes[-1] - sizes[start - 1]) / span
    out["json"] = (bodies[-1] - bodies[2 * start - 1]) / span
    out["memory_rounds"] = (start, memory_rounds)
    log(f"memory: {out['memory']:,.0f} B per round trip, history JSON {out['json']:,.0f} B")
    directory = tempfile.mkdtemp(prefix="pyclient-bench-")
    stores: list[tuple[str, Callable[[], Any]]] = [
        ("no store", lambda: None), ("MemoryStore", MemoryStore),
        ("FileStore", lambda: FileStore(tempfile.mkdtemp(dir=directory))),
        ("save/load-only store (whole snapshots)", WholeStore)]
    out["stores"] = {}
    try:
        for name, make in stores:
            timed = asyncio.run(_timed(rounds, make()))
            times, written = timed["times"], timed["written"]
            first = statistics.median(times[:window]) * 1e3
            last = statistics.median(times[-window:]) * 1e3
            mean_last = statistics.fmean(times[-window:]) * 1e3
            out["stores"][name] = (first, last, mean_last, statistics.fmean(written[:window]),
                                   statistics.fmean(written[-window:]))
            log(f"saves: {name}: {first:.3f} ms at the start, {last:.3f} ms at {rounds}")
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return out


def report_cpython(r: dict[str, Any]) -> str:
    n, w = r["rounds"], r["window"]
    lines = ["issue 26 on CPython: one thread, tool round trips (send -> call -> follow-up -> text), in-process transport",
             "",
             f"memory (tracemalloc), round trips {r['memory_rounds'][0]}-{r['memory_rounds'][1]}:",
             f"  kept per round trip          {r['memory']:>8,.0f} B",
             f"  the history's JSON           {r['json']:>8,.0f} B   ratio {r['memory'] / r['json']:.2f}x "
             f"(target <= 2x: {'met' if r['memory'] <= 2 * r['json'] else 'MISSED'})",
             "",
             f"a round trip with saves (median ms; a send and its saves): first {w} vs last {w} of {n:,}",
             f"{'store':<40}{'start':>8}{f'at {n:,}':>10}{'ratio':>8}{'mean end':>10}"
             f"{'B written/rt start':>20}{'at end':>10}{'ratio':>8}"]
    for name, (first, last, mean_last, w_first, w_last) in r["stores"].items():
        verdict = "" if name.startswith("save/load") else ("met" if last <= 1.5 * first else "MISSED")
        bytes_ratio = f"{w_last / w_first:>7.2f}x" if w_first else f"{'':>8}"
        lines.append(f"{name:<40}{first:>8.3f}{last:>10.3f}{last / first:>7.2f}x{mean_last:>10.3f}"
                     f"{w_first:>20,.0f}{w_last:>10,.0f}{bytes_ratio}  {verdict}")
    lines.append("target: a round trip at the end <= 1.5x one at the start, with each store (the save/load-only "
                 "store is today's custom-store protocol, shown for comparison); bytes written per round trip "
                 "(JSON, mean, whole saves included) do not depend on the machine's load")
    return "\n".join(lines)
