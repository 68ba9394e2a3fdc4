"""Boot time of the demo page against a bare PyScript page that only imports pydantic.

Both pages are served by the same dev server and loaded by the same Chromium, in interleaved
runs (bare, demo, bare, demo, …) so that machine noise hits both alike. Each run starts a
fresh persistent context (empty disk cache) and measures:

- cold: navigation start → ready, nothing cached;
- warm: a reload of the same page, everything in the disk cache.

"Ready", read page-side with `performance.now()` (0 = navigation start), polled every 10 ms:
the bare page once Python has imported pydantic (`document.documentElement.dataset.pyclient ==
"ready"`); the demo once it is usable: that mark (set after its tools are registered with the
agent and its thread and Chat exist), and the chat's message input and Send button present and
enabled. Target: the demo's cold boot at most 1.10× the bare page's.

    python bench/boot.py            # 5 runs of each
    python bench/boot.py --runs 9

`run_boot(playwright, base_url)` and `report_boot(results)` are what `bench/run.py` uses.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devserver.chromium import launch_args  # noqa: E402

PAGES = {"bare": "/bench/bare.html", "demo": "/"}
LABELS = {"bare": "bare PyScript + pydantic", "demo": "demo (pyclient + ag-ui + tools)"}
TARGET_BOOT = 1.10
"""The demo's cold boot at most 1.10× the bare page's."""
READY = """() => new Promise(resolve => {
  const usable = () => {
    if (document.documentElement.dataset.pyclient !== "ready") return false;
    if (location.pathname.startsWith("/bench/")) return true;  // the bare page has no chat
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


def sample(playwright, url: str) -> tuple[float, float, int, int]:
    """One cold load and one warm reload: (cold ms, warm ms, cold bytes, warm bytes)."""
    with tempfile.TemporaryDirectory() as profile:
        context = playwright.chromium.launch_persistent_context(profile, **launch_args())
        try:
            page = context.new_page()
            page.goto(url)
            cold = page.evaluate(READY)
            cold_bytes = page.evaluate(TRANSFERRED)
            page.reload()
            warm = page.evaluate(READY)
            warm_bytes = page.evaluate(TRANSFERRED)
        finally:
            context.close()
    return cold, warm, cold_bytes, warm_bytes


BootResults = dict[str, list[tuple[float, float, int, int]]]


def run_boot(playwright: Any, base_url: str, *, runs: int = 5,
             log: Callable[[str], None] = lambda line: None) -> BootResults:
    """`runs` interleaved cold+warm samples of each page, after one throwaway load (the server's gzip cache)."""
    results: BootResults = {name: [] for name in PAGES}
    sample(playwright, base_url + PAGES["demo"])
    for run in range(runs):
        for name, path in PAGES.items():
            results[name].append(sample(playwright, base_url + path))
            cold, warm, _, _ = results[name][-1]
            log(f"boot {run + 1}/{runs} {name:4}: cold {cold:7.0f} ms  warm {warm:7.0f} ms")
    return results


def report_boot(results: BootResults) -> str:
    runs = len(results["bare"])
    med = {name: [statistics.median(col) for col in zip(*rows)] for name, rows in results.items()}
    lines = [f"boot, median of {runs} interleaved runs (Chromium, 127.0.0.1): navigation → ready "
             "(demo: tools registered, chat input enabled)", "",
             f"{'page':<34}{'cold':>10}{'warm':>10}{'cold bytes':>14}{'warm bytes':>12}"]
    for name, (cold, warm, cold_bytes, warm_bytes) in med.items():
        lines.append(f"{LABELS[name]:<34}{cold / 1000:>9.2f}s{warm / 1000:>9.2f}s"
                     f"{cold_bytes / 1e6:>12.2f}MB{warm_bytes / 1e6:>10.2f}MB")
    cold_ratio, warm_ratio = med["demo"][0] / med["bare"][0], med["demo"][1] / med["bare"][1]
    lines.append(f"{'ratio demo / bare':<34}{cold_ratio:>9.2f}×{warm_ratio:>9.2f}×")
    met = "met" if cold_ratio <= TARGET_BOOT else "MISSED"
    lines += ["", f"target: demo cold ≤ {TARGET_BOOT:.2f}× bare: {cold_ratio:.2f}×: {met}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="samples of each page (default 5)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    from devserver.app import create_app
    from devserver.assets import build
    from devserver.background import ServerThread

    build()
    with ServerThread(create_app()) as server, sync_playwright() as playwright:
        results = run_boot(playwright, server.url, runs=args.runs, log=lambda line: print(line, file=sys.stderr))
    print()
    print(report_boot(results))


if __name__ == "__main__":
    main()
