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
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devserver.chromium import launch_args  # noqa: E402

PAGES = {"bare": "/bench/bare.html", "bare-worker": "/bench/bare_worker.html", "demo": "/"}
LABELS = {"bare": "bare PyScript + pydantic", "bare-worker": "bare, Python in a worker",
          "demo": "demo (pyclient + ag-ui + tools)"}
TARGET_BOOT = 1.10
"""The demo's cold boot at most 1.10× the bare page's; its warm boot at most 1.10× the bare worker page's (issue 26)."""
# The boot's phases, marked page-side as PyScript reports them: it starts loading Pyodide and the
# wheels ("Loading interpreter"), then runs the page's Python (`py:ready` on the script element).
PHASES = """(() => {
  window.__bootPhases = {};
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

    @property
    def phases(self) -> tuple[float, float, float]:
        """nav → Pyodide (PyScript, the page's files), Pyodide + wheels, Python → ready."""
        return self.interpreter, self.python - self.interpreter, self.ready - self.python


def _load(page: Any) -> Load:
    ready = page.evaluate(READY)
    marks = page.evaluate("window.__bootPhases")
    if "interpreter" not in marks or "python" not in marks:
        raise RuntimeError(f"{page.url}: PyScript reported no \"Loading interpreter\" or py:ready ({marks})")
    return Load(ready, marks["interpreter"], marks["python"], page.evaluate(TRANSFERRED))


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
    cold_ratio = demo["cold"] / med["bare"]["cold"]
    warm_ratio = demo["warm"] / med["bare-worker"]["warm"]
    lines += ["", f"target: demo cold ≤ {TARGET_BOOT:.2f}× bare: {cold_ratio:.2f}×: "
              f"{'met' if cold_ratio <= TARGET_BOOT else 'MISSED'}",
              f"target: demo warm ≤ {TARGET_BOOT:.2f}× bare worker (the demo's Python runs in a worker): "
              f"{warm_ratio:.2f}×: {'met' if warm_ratio <= TARGET_BOOT else 'MISSED'} "
              f"(against the main-thread bare page: {demo['warm'] / med['bare']['warm']:.2f}×)"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="samples of each page (default 5)")
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
    for title, table in tables.items():
        print()
        print((f"{title}:\n" if title else "") + report_boot(table, (load, os.getloadavg()[0])))


if __name__ == "__main__":
    main()
