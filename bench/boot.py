"""Boot time of the demo page against bare PyScript pages that only import pydantic.

The pages are served by the same dev server and loaded by the same Chromium, in interleaved
runs (bare, bare worker, demo, bare, …) so that machine noise hits them alike. Each run starts
a fresh persistent context (empty disk cache) and measures:

- cold: navigation start → ready, nothing cached;
- warm: a reload of the same page, everything in the disk cache.

"Ready", read page-side with `performance.now()` (0 = navigation start), polled every 10 ms:
the bare pages once Python has imported pydantic (`document.documentElement.dataset.pyclient ==
"ready"`); the demo once it is usable: that mark (set after its tools are registered with the
agent and its thread and Chat exist), and the chat's message input and Send button present and
enabled. Two bare pages: web/bench/bare.html runs its Python on the main thread,
web/bench/bare_worker.html in a PyScript worker, as the demo does (since issue 24). Each load is
cut into phases by PyScript's own events, marked page-side: navigation → "Loading interpreter"
(PyScript and the page's files), → `py:ready` (Pyodide and the wheels), → ready (the page's Python).
Targets: the demo's cold boot at most 1.10× the bare page's; its warm boot at most 1.10× the
bare worker page's (the same kind of page: on 2 cores the worker's start and its round trips to
the page cost what the main-thread page does not pay).

    python bench/boot.py            # 5 runs of each
    python bench/boot.py --runs 9
    python bench/boot.py --against /tmp/runtime-before   # and the pages on another runtime, same rounds

`run_boot(playwright, base_url)` and `report_boot(results)` are what `bench/run.py` uses.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devserver.chromium import launch_args  # noqa: E402

PAGES = {"bare": "/bench/bare.html", "bare-worker": "/bench/bare_worker.html", "demo": "/",
         "shell": "/tests/shell.html"}
LABELS = {"bare": "bare PyScript + pydantic", "bare-worker": "bare, Python in a worker",
          "demo": "demo (pyclient + ag-ui + tools)", "shell": "a chat on the main thread"}
TARGET_BOOT = 1.10
"""The demo's cold boot at most 1.10× the bare page's (issue 26, kept by issue 40)."""
TARGET_WARM = 1.15
"""The demo's warm boot at most 1.15× the bare worker page's (issue 40)."""
TARGET_INPUT_MS = 300
"""Navigation → the chat's composer takes input, median, cold and warm, each chat page (issue 40)."""
TARGET_SEND_MS = 50
"""Worker mode: Enter → the composer empty and the message shown, p95 of the sends (issue 40)."""
# The boot's phases, marked page-side as PyScript reports them: it starts loading Pyodide and the
# wheels ("Loading interpreter"), then runs the page's Python (`py:ready` on the script element).
PHASES = """(() => {
  window.__bootPhases = {};
  // The first frame whose chat composer takes input (the shell's, drawn by pyclient.js).
  const input = () => {
    const field = document.querySelector("#chat input[name=message]");
    if (field && !field.disabled) window.__bootPhases.input = performance.now();
    else requestAnimationFrame(input);
  };
  requestAnimationFrame(input);
  addEventListener("py:progress", ({ detail }) => {
    if (detail === "Loading interpreter") window.__bootPhases.interpreter = performance.now();
  });
  addEventListener("py:ready", () => { window.__bootPhases.python = performance.now(); }, { capture: true });
})()"""
READY = """() => new Promise(resolve => {
  const usable = () => {
    if (document.documentElement.dataset.pyclient !== "ready") return false;
    if (location.pathname.startsWith("/bench/")) return true;  // the bare pages have no chat
    const input = document.querySelector("#chat input[name=message]");
    const button = document.querySelector("#chat button[type=submit]");
    return Boolean(input && button && !input.disabled && !button.disabled);
  };
  const check = () => usable() ? resolve(performance.now()) : setTimeout(check, 10);
  check();
})"""
TRANSFERRED = """() => performance.getEntriesByType("resource")
  .concat(performance.getEntriesByType("navigation"))
  .reduce((sum, entry) => sum + (entry.transferSize || 0), 0)"""
PHASE_NAMES = ("nav → Pyodide", "Pyodide + wheels", "Python → ready")


class Load(NamedTuple):
    """One load, ms since navigation: when it was ready, and when PyScript began loading Pyodide
    and ran the page's Python; bytes transferred."""

    ready: float
    interpreter: float
    python: float
    transferred: int
    input: float | None  # the composer took input (None: a page with no chat)

    @property
    def phases(self) -> tuple[float, float, float]:
        """nav → Pyodide (PyScript, the page's files), Pyodide + wheels, Python → ready."""
        return self.interpreter, self.python - self.interpreter, self.ready - self.python


def _load(page: Any) -> Load:
    ready = page.evaluate(READY)
    marks = page.evaluate("window.__bootPhases")
    if "interpreter" not in marks or "python" not in marks:
        raise RuntimeError(f"{page.url}: PyScript reported no \"Loading interpreter\" or py:ready ({marks})")
    return Load(ready, marks["interpreter"], marks["python"], page.evaluate(TRANSFERRED), marks.get("input"))


def sample(playwright: Any, url: str) -> tuple[Load, Load]:
    """One cold load and one warm reload of `url` in a fresh profile."""
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(profile, **launch_args())
        try:
            context.add_init_script(PHASES)
            page = context.new_page()
            page.goto(url)
            cold = _load(page)
            page.reload()
            warm = _load(page)
        finally:
            context.close()
    return cold, warm


BootResults = dict[str, list[tuple[Load, Load]]]


def run_boot(playwright: Any, base_url: str, *, runs: int = 5,
             log: Callable[[str], None] = lambda line: None) -> BootResults:
    """`runs` interleaved cold+warm samples of each page, after one throwaway load (the server's gzip cache)."""
    return run_servers(playwright, {"": base_url}, runs=runs, log=log)[""]


def run_servers(playwright: Any, bases: dict[str, str], *, runs: int = 5,
                log: Callable[[str], None] = lambda line: None) -> dict[str, BootResults]:
    """`run_boot` on several servers (label → URL: runtimes before and after a change) in the same rounds."""
    results: dict[str, BootResults] = {tag: {name: [] for name in PAGES} for tag in bases}
    for base in bases.values():
        sample(playwright, base + PAGES["demo"])
    for run in range(runs):
        for tag, base in bases.items():
            for name, path in PAGES.items():
                results[tag][name].append(sample(playwright, base + path))
                cold, warm = results[tag][name][-1]
                log(f"boot {run + 1}/{runs} {tag}{' ' if tag else ''}{name:11}: "
                    f"cold {cold.ready:7.0f} ms  warm {warm.ready:7.0f} ms")
    return results


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}×" if b > 0 else "-"


def report_boot(results: BootResults, load: tuple[float, float] | None = None) -> str:
    runs = len(results["bare"])
    med = {name: {"cold": statistics.median(c.ready for c, _ in rows), "warm": statistics.median(w.ready for _, w in rows),
                  "cold bytes": statistics.median(c.transferred for c, _ in rows),
                  "warm bytes": statistics.median(w.transferred for _, w in rows),
                  "cold phases": [statistics.median(c.phases[i] for c, _ in rows) for i in range(3)],
                  "warm phases": [statistics.median(w.phases[i] for _, w in rows) for i in range(3)]}
           for name, rows in results.items()}
    lines = [f"boot, median of {runs} interleaved runs (Chromium, 127.0.0.1): navigation → ready "
             "(demo: tools registered, chat input enabled)"
             + (f"; load average {load[0]:.1f} → {load[1]:.1f}" if load else ""), "",
             f"{'page':<34}{'cold':>10}{'warm':>10}{'cold bytes':>14}{'warm bytes':>12}   (bytes: the page's own "
             "requests; a worker's, Pyodide and the wheels, are not in the page's timeline)"]
    for name, m in med.items():
        lines.append(f"{LABELS[name]:<34}{m['cold'] / 1000:>9.2f}s{m['warm'] / 1000:>9.2f}s"
                     f"{m['cold bytes'] / 1e6:>12.2f}MB{m['warm bytes'] / 1e6:>10.2f}MB")
    demo = med["demo"]
    inputs = {name: {kind: statistics.median(load.input for load in loads)
                     for kind, loads in (("cold", [c for c, _ in rows]), ("warm", [w for _, w in rows]))}
              for name, rows in results.items() if all(c.input is not None and w.input is not None for c, w in rows)}
    for base in ("bare", "bare-worker"):
        lines.append(f"{'ratio demo / ' + base:<34}{_ratio(demo['cold'], med[base]['cold']):>10}"
                     f"{_ratio(demo['warm'], med[base]['warm']):>10}")
    lines += ["", "phases, median ms (PyScript's \"Loading interpreter\" and py:ready, page-side)",
              f"{'page':<34}" + "".join(f"{kind + ' ' + phase:>26}" for kind in ("cold", "warm")
                                        for phase in PHASE_NAMES)]
    for name, m in med.items():
        lines.append(f"{LABELS[name]:<34}" + "".join(f"{value:>26.0f}" for kind in ("cold", "warm")
                                                     for value in m[kind + " phases"]))
    for base in ("bare", "bare-worker"):
        lines.append(f"{'ratio demo / ' + base:<34}" + "".join(
            f"{_ratio(a, b):>26}" for kind in ("cold", "warm")
            for a, b in zip(demo[kind + " phases"], med[base][kind + " phases"])))
    lines += ["", "navigation → the chat's composer takes input (the shell pyclient.js draws), median ms",
              f"{'page':<34}{'cold':>10}{'warm':>10}"]
    for name, m in inputs.items():
        lines.append(f"{LABELS[name]:<34}{m['cold']:>10.0f}{m['warm']:>10.0f}")
    slowest = max((value for m in inputs.values() for value in m.values()), default=float("inf"))
    cold_ratio = demo["cold"] / med["bare"]["cold"]
    warm_ratio = demo["warm"] / med["bare-worker"]["warm"]
    lines += ["", f"target: composer takes input ≤ {TARGET_INPUT_MS} ms, median, each chat page, cold and warm: "
              f"slowest {slowest:.0f} ms: {'met' if slowest <= TARGET_INPUT_MS else 'MISSED'}",
              f"target: demo cold ≤ {TARGET_BOOT:.2f}× bare: {cold_ratio:.2f}×: "
              f"{'met' if cold_ratio <= TARGET_BOOT else 'MISSED'}",
              f"target: demo warm ≤ {TARGET_WARM:.2f}× bare worker (the demo's Python runs in a worker): "
              f"{warm_ratio:.2f}×: {'met' if warm_ratio <= TARGET_WARM else 'MISSED'} "
              f"(against the main-thread bare page: {demo['warm'] / med['bare']['warm']:.2f}×)"]
    return "\n".join(lines)


# Each Enter in the composer, page-side: from the key's event to the first frame with the composer
# empty and the message shown (the shell's outbox, or the chat's own bubble), in ms.
SEND_CLOCK = """() => {
  window.__sends = [];
  const input = document.querySelector("#chat input[name=message]");
  input.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    const start = performance.now(), text = input.value;
    const look = () => {
      const shown = [...document.querySelectorAll("#chat .pyclient-unsent, #chat .pyclient-user")]
        .some((node) => node.textContent === text);
      if (input.value === "" && shown) window.__sends.push(performance.now() - start);
      else requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  }, true);
}"""
IDLE = "document.querySelector('#chat .pyclient-chat')?.dataset.status === 'idle'"


class Sends(NamedTuple):
    """A message sent at first paint (ms after navigation, how many requests carried it), then
    the latencies of `sends` messages sent one after another once the chat is ready."""

    early_at: float
    early_input: float
    early_requests: int
    latencies: list[float]


def _sends_text(body: str, text: str) -> bool:
    """Whether a run's request sends `text` as the person's new message (its last message; a
    follow-up carries it in the history, with the tools' results after it)."""
    try:
        messages = json.loads(body).get("messages") or []
    except ValueError:
        return False
    return bool(messages) and messages[-1].get("role") == "user" and messages[-1].get("content") == text


def run_sends(playwright: Any, base_url: str, *, sends: int = 20) -> Sends:
    """The demo (Python in a worker): a message sent as soon as the composer takes input, then
    `sends` more, each once the last answer is over."""
    carried: list[str] = []
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(profile, **launch_args())
        try:
            context.add_init_script(PHASES)
            # A worker's requests are the context's too.
            context.on("request", lambda request: carried.append(request.post_data or "")
                       if request.method == "POST" and request.url.endswith("/agent") else None)
            page = context.new_page()
            page.goto(base_url + PAGES["demo"], wait_until="commit")
            page.wait_for_function("window.__bootPhases && window.__bootPhases.input !== undefined", polling="raf")
            page.fill("#chat input[name=message]", "hello at first paint")
            page.press("#chat input[name=message]", "Enter")
            early_at = page.evaluate("performance.now()")
            early_input = page.evaluate("window.__bootPhases.input")
            page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'", timeout=120_000)
            page.wait_for_function("document.querySelectorAll('#chat .pyclient-messages .pyclient-user').length === 1 && "
                                   + IDLE, timeout=120_000, polling=20)
            early_requests = sum(_sends_text(body, "hello at first paint") for body in carried)
            page.evaluate(SEND_CLOCK)
            for index in range(sends):
                page.fill("#chat input[name=message]", f"hello {index}")
                page.press("#chat input[name=message]", "Enter")
                page.wait_for_function(f"window.__sends.length === {index + 1}", polling=20)
                page.wait_for_function(f"document.querySelectorAll('#chat .pyclient-messages .pyclient-user').length "
                                       f"=== {index + 2} && " + IDLE, timeout=60_000, polling=20)
            latencies = page.evaluate("window.__sends")
        finally:
            context.close()
    return Sends(early_at, early_input, early_requests, latencies)


def report_sends(result: Sends) -> str:
    ordered = sorted(result.latencies)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return "\n".join([
        f"the demo (Python in a worker): a message sent {result.early_at:.0f} ms after navigation "
        f"({result.early_at - result.early_input:.0f} ms after the composer took input), before Python: "
        f"sent by {result.early_requests} request(s) (target: exactly 1)",
        f"Enter → composer empty and the message shown, {len(ordered)} sends: median {statistics.median(ordered):.0f} ms, "
        f"p95 {p95:.0f} ms, max {ordered[-1]:.0f} ms",
        f"target: p95 ≤ {TARGET_SEND_MS} ms: {'met' if p95 <= TARGET_SEND_MS else 'MISSED'}; "
        f"exactly once: {'met' if result.early_requests == 1 else 'MISSED'}",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="samples of each page (default 5)")
    parser.add_argument("--sends", type=int, default=20, help="messages sent to time Enter → shown (default 20)")
    parser.add_argument("--against", type=Path, metavar="RUNTIME",
                        help="also serve the pages from this runtime folder (another build: before a change), "
                             "sampled in the same rounds")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from devserver.app import create_app
    from devserver.assets import build
    from devserver.background import ServerThread

    build()
    load = os.getloadavg()[0]
    log = lambda line: print(line, file=sys.stderr)  # noqa: E731
    with ServerThread(create_app()) as server, sync_playwright() as playwright:
        if args.against is None:
            tables = run_servers(playwright, {"": server.url}, runs=args.runs, log=log)
        else:
            with ServerThread(create_app(runtime=args.against)) as other:
                tables = run_servers(playwright, {f"runtime {args.against}": other.url, "this checkout's runtime": server.url},
                                     runs=args.runs, log=log)
        sends = run_sends(playwright, server.url, sends=args.sends)
    for title, table in tables.items():
        print()
        print((f"{title}:\n" if title else "") + report_boot(table, (load, os.getloadavg()[0])))
    print()
    print(report_sends(sends))


if __name__ == "__main__":
    main()
