"""Boot time of the demo page against a bare PyScript page that only imports pydantic.

Both pages are served by the same dev server and loaded by the same Chromium, in interleaved
runs (bare, demo, bare, demo, …) so that machine noise hits both alike. Each run starts a
fresh persistent context (empty disk cache) and measures:

- cold: navigation start → Python ready, nothing cached;
- warm: a reload of the same page, everything in the disk cache.

"Ready" is `document.documentElement.dataset.pyclient == "ready"`, read page-side with
`performance.now()` (0 = navigation start), polled every 10 ms.

    python bench/boot.py            # 5 runs of each
    python bench/boot.py --runs 9
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from devserver.app import create_app  # noqa: E402
from devserver.assets import build  # noqa: E402
from devserver.background import ServerThread  # noqa: E402
from devserver.chromium import launch_args  # noqa: E402

PAGES = {"bare": "/bench/bare.html", "demo": "/"}
READY = """() => new Promise(resolve => {
  const check = () => document.documentElement.dataset.pyclient === "ready"
    ? resolve(performance.now()) : setTimeout(check, 10);
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="samples of each page (default 5)")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    build()
    results: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name in PAGES}
    with ServerThread(create_app()) as server, sync_playwright() as playwright:
        # One throwaway load so the server's gzip cache is warm for every measured run.
        sample(playwright, server.url + PAGES["demo"])
        for run in range(args.runs):
            for name, path in PAGES.items():
                results[name].append(sample(playwright, server.url + path))
                cold, warm, _, _ = results[name][-1]
                print(f"run {run + 1}/{args.runs} {name:4}: cold {cold:7.0f} ms  warm {warm:7.0f} ms",
                      file=sys.stderr)

    med = {name: [statistics.median(col) for col in zip(*rows)] for name, rows in results.items()}
    print(f"\nboot, median of {args.runs} interleaved runs (Chromium, 127.0.0.1)")
    print(f"{'page':<34}{'cold':>10}{'warm':>10}{'cold bytes':>14}{'warm bytes':>12}")
    labels = {"bare": "bare PyScript + pydantic", "demo": "demo (pyclient + ag-ui + tool)"}
    for name, (cold, warm, cold_bytes, warm_bytes) in med.items():
        print(f"{labels[name]:<34}{cold / 1000:>9.2f}s{warm / 1000:>9.2f}s"
              f"{cold_bytes / 1e6:>12.2f}MB{warm_bytes / 1e6:>10.2f}MB")
    print(f"{'ratio demo / bare':<34}{med['demo'][0] / med['bare'][0]:>9.2f}x"
          f"{med['demo'][1] / med['bare'][1]:>9.2f}x")


if __name__ == "__main__":
    main()
