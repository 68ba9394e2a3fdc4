"""The benchmarks' AG-UI streams: generated server-side, byte-identical for every client.

Four Starlette routes (`routes()`), added to the dev server by the bench scripts:

| route | first run | follow-up (last message a tool message) |
| --- | --- | --- |
| `POST /bench/long?n=N` | one text message of N `TEXT_MESSAGE_CONTENT` deltas | (none: the run leaves nothing pending) |
| `POST /bench/parallel?n=N` | N parallel calls of `bench_mark({"index": i})` | a short text |
| `POST /bench/bigargs?bytes=B&deltas=D` | one call of `bench_blob({"blob": <B chars>})` in D `TOOL_CALL_ARGS` deltas | a short text |
| `POST /bench/loop?rounds=R` | a short fixed text and one call of `bench_mark` | the same again, until R tool results follow the last user message; then a short text |

Ids are fixed (`threadId` "bench", `runId` "bench-<kind>-<params>"): pyclient does not check them,
so one stream serves every client and every sample. Each stream is built once and kept, so a
request costs the server no generation time; the whole body goes out in one response. (The loop
route's call ids count the thread's tool results, so its streams are made per request: a few
hundred bytes.)

Every route takes an optional `mark=<key>`: the `Timeline` given to `routes()` then records, per
key, when each request reached the route and when its response's last byte had been handed to
the server, on the server's clock (dispatch and long-thread benchmarks read the gaps).

```python
from bench.streams import long_text, stream

body = stream("long", n=3)
assert body.count(b"data: ") == 3 + 4          # RUN_STARTED, TEXT_MESSAGE_START, 3 deltas, END, RUN_FINISHED
assert long_text(3) == "w0 w1 w2 end."
assert stream("loop", rounds=1).count(b'"TOOL_CALL_START"') == 1
```
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import pairwise
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from devserver.demo_model import chunk_text

__all__ = [
    "BIGARGS_TOOL",
    "LOOP_DONE",
    "LOOP_TEXT",
    "PARALLEL_TOOL",
    "Timeline",
    "Visit",
    "bigargs_blob",
    "blob_result",
    "event_count",
    "follow_up_text",
    "long_text",
    "mark_result",
    "routes",
    "stream",
]

PARALLEL_TOOL = "bench_mark"
"""The page tool the parallel stream calls: `bench_mark(index: int) -> str`."""

BIGARGS_TOOL = "bench_blob"
"""The page tool the big-arguments stream calls: `bench_blob(blob: str) -> str`."""

LOOP_TEXT = "bench loop step."
"""The short fixed text of every `/bench/loop` run that calls the tool."""

LOOP_DONE = "bench loop done."
"""The text of the `/bench/loop` run that ends a send (no call)."""

_THREAD = "bench"


def long_text(n: int) -> str:
    """The text of `/bench/long?n=N`: the concatenation of its N deltas."""
    return "".join(_long_deltas(n))


def _long_deltas(n: int) -> list[str]:
    # Word-sized deltas, as models stream them; the last one closes the text.
    return [f"w{i} " for i in range(n - 1)] + [f"w{n - 1} end."] if n else []


def mark_result(index: int) -> str:
    """What the page's `bench_mark(index)` returns: "done#<index>#" (no result is a substring of another)."""
    return f"done#{index}#"


def blob_result(size: int) -> str:
    """What the page's `bench_blob(blob)` returns for a blob of `size` characters."""
    return f"got {size} chars"


def bigargs_blob(size: int) -> str:
    """The ~`size`-character string argument of `/bench/bigargs` (ASCII, so characters are bytes)."""
    unit = "lorem ipsum dolor sit amet "
    return (unit * (size // len(unit) + 1))[:size]


def follow_up_text(kind: str, **params: int) -> str:
    """The short text that answers a follow-up of `kind` ("parallel" or "bigargs")."""
    detail = ", ".join(f"{k}={v}" for k, v in sorted(params.items()))
    return f"bench {kind} done ({detail})."


def _sse(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"data: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events).encode()


def _text_run(run_id: str, message_id: str, deltas: list[str]) -> list[dict[str, Any]]:
    return [
        {"type": "RUN_STARTED", "threadId": _THREAD, "runId": run_id},
        {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": d} for d in deltas),
        {"type": "TEXT_MESSAGE_END", "messageId": message_id},
        {"type": "RUN_FINISHED", "threadId": _THREAD, "runId": run_id},
    ]


def _calls_run(run_id: str, message_id: str, calls: list[tuple[str, str, list[str]]]) -> list[dict[str, Any]]:
    """A run of tool calls `(id, name, argument deltas)`, each START, ARGS…, END in turn."""
    events: list[dict[str, Any]] = [{"type": "RUN_STARTED", "threadId": _THREAD, "runId": run_id}]
    for call_id, name, deltas in calls:
        events.append({"type": "TOOL_CALL_START", "toolCallId": call_id, "toolCallName": name,
                       "parentMessageId": message_id})
        events.extend({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": d} for d in deltas)
        events.append({"type": "TOOL_CALL_END", "toolCallId": call_id})
    events.append({"type": "RUN_FINISHED", "threadId": _THREAD, "runId": run_id})
    return events


def _loop_run(done: int, rounds: int, serial: int = 0) -> bytes:
    """`/bench/loop` after `done` tool results since the last user message (`serial` in the whole
    thread, which numbers the ids): a text and a call, or the end."""
    run_id = f"bench-loop-{serial}"
    if done >= rounds:
        return _sse(_text_run(run_id, f"bench-loop-end-{serial}", [LOOP_DONE]))
    message_id = f"bench-loop-text-{serial}"
    events = _text_run(run_id, message_id, [LOOP_TEXT])[:-1]  # without RUN_FINISHED
    events += _calls_run(run_id, message_id, [(f"bench-loop-call-{serial}", PARALLEL_TOOL,
                                               [json.dumps({"index": serial})])])[1:]
    return _sse(events)


@lru_cache(maxsize=32)
def _stream(kind: str, follow_up: bool, params: tuple[tuple[str, int], ...]) -> bytes:
    p = dict(params)
    if kind == "loop":  # a first run; the others depend on the history (`_loop_run`)
        return _loop_run(0, p["rounds"])
    run_id = "bench-" + "-".join([kind, *(f"{k}{v}" for k, v in params), *(["follow-up"] if follow_up else [])])
    if kind == "long":
        return _sse(_text_run(run_id, "bench-long-text", _long_deltas(p["n"])))
    if follow_up:
        text = follow_up_text(kind, **p)
        return _sse(_text_run(run_id, f"bench-{kind}-answer", chunk_text(text, 3)))
    if kind == "parallel":
        calls = [(f"bench-call-{i:05d}", PARALLEL_TOOL, [json.dumps({"index": i})]) for i in range(p["n"])]
        return _sse(_calls_run(run_id, "bench-parallel-calls", calls))
    if kind == "bigargs":
        args = json.dumps({"blob": bigargs_blob(p["bytes"])})
        calls = [("bench-blob-call", BIGARGS_TOOL, chunk_text(args, p["deltas"]))]
        return _sse(_calls_run(run_id, "bench-bigargs-call", calls))
    raise ValueError(f"Unknown bench stream {kind!r}: use long, parallel or bigargs.")


def stream(kind: str, *, follow_up: bool = False, **params: int) -> bytes:
    """The SSE body of `kind` ("long": `n`; "parallel": `n`; "bigargs": `bytes`, `deltas`),
    for its first run or, with `follow_up=True`, for the run after its tool results."""
    return _stream(kind, follow_up, tuple(sorted(params.items())))


def event_count(kind: str, **params: int) -> int:
    """The AG-UI events one `send()` of `kind` receives, follow-up included."""
    total = stream(kind, **params).count(b"data: ")
    if kind == "loop":
        return sum(_loop_run(done, params["rounds"]).count(b"data: ") for done in range(params["rounds"] + 1))
    if kind != "long":
        total += stream(kind, follow_up=True, **params).count(b"data: ")
    return total


@dataclass
class Visit:
    """One request to a bench route: `arrived` when it reached the route, `finished` when the
    response's last byte had been handed to the server (`time.perf_counter()` seconds), the
    request body's size and whether it was a follow-up (its last message a tool message)."""

    arrived: float
    finished: float = 0.0
    body_bytes: int = 0
    follow_up: bool = False


@dataclass
class Timeline:
    """The visits of every request with a `mark=<key>` query, per key, in arrival order.

    ```python
    from bench.streams import Timeline, Visit

    timeline = Timeline()
    timeline.visits["a"] = [Visit(1.0, 1.5), Visit(1.75, 2.0, follow_up=True)]
    assert timeline.gaps("a") == [0.25]
    ```
    """

    visits: dict[str, list[Visit]] = field(default_factory=dict)

    def gaps(self, key: str) -> list[float]:
        """Seconds from each response's end to the follow-up's arrival (the client's share of a round trip)."""
        visits = self.visits.get(key, [])
        return [nxt.arrived - prev.finished for prev, nxt in pairwise(visits) if nxt.follow_up]


class _TimedResponse(Response):
    """A Response that notes in `visit` when its body has been handed to the server."""

    def __init__(self, body: bytes, visit: Visit | None) -> None:
        super().__init__(body, media_type="text/event-stream", headers={"cache-control": "no-cache"})
        self.visit = visit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await super().__call__(scope, receive, send)
        if self.visit is not None:
            self.visit.finished = time.perf_counter()


_PARAMS = {"long": {"n": 10_000}, "parallel": {"n": 1_000}, "bigargs": {"bytes": 1_000_000, "deltas": 10_000},
           "loop": {"rounds": 100}}
_LIMITS = {"n": 1_000_000, "bytes": 50_000_000, "deltas": 1_000_000, "rounds": 100_000}


def _tool_results(messages: list[Any]) -> tuple[int, int]:
    """Tool results after the last user message, and in all."""
    roles = [m.get("role") if isinstance(m, dict) else None for m in messages]
    last_user = max((i for i, role in enumerate(roles) if role == "user"), default=-1)
    return roles[last_user + 1:].count("tool"), roles.count("tool")


def _endpoint(kind: str, timeline: Timeline | None):
    async def endpoint(request: Request) -> Response:
        visit = None
        mark = request.query_params.get("mark")
        if timeline is not None and mark:
            visit = Visit(time.perf_counter())
            timeline.visits.setdefault(mark, []).append(visit)
        params = dict(_PARAMS[kind])
        for key in params:
            raw = request.query_params.get(key)
            if raw is None:
                continue
            if not raw.isdigit() or not 0 < int(raw) <= _LIMITS[key]:
                return JSONResponse({"detail": f"{key} must be an integer in 1..{_LIMITS[key]}, got {raw!r}."},
                                    status_code=400)
            params[key] = int(raw)
        body = await request.body()
        try:
            messages = json.loads(body).get("messages") or []
        except (ValueError, AttributeError):
            return JSONResponse({"detail": "Expected an AG-UI RunAgentInput JSON body."}, status_code=422)
        follow_up = bool(messages) and isinstance(messages[-1], dict) and messages[-1].get("role") == "tool"
        if visit is not None:
            visit.body_bytes, visit.follow_up = len(body), follow_up
        if kind == "loop":
            done, serial = _tool_results(messages)
            return _TimedResponse(_loop_run(done, params["rounds"], serial), visit)
        return _TimedResponse(stream(kind, follow_up=follow_up, **params), visit)

    return endpoint


def routes(timeline: Timeline | None = None) -> list[Route]:
    """The benchmark routes, for `devserver.app.create_app(extra_routes=...)`; `timeline` records
    the requests that carry a `mark`."""
    return [Route(f"/bench/{kind}", _endpoint(kind, timeline), methods=["POST"]) for kind in _PARAMS]
