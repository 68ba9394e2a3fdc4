"""bench/boot.py's report: each page's phases, the ratios against both bare pages, and the targets (cold
against the bare page, warm against the bare worker page, the demo's own kind)."""

from __future__ import annotations

from bench.boot import Load, report_boot


def test_report_shows_phases_ratios_and_both_targets():
    results = {
        "bare": [(Load(1000, 100, 800, 5), Load(500, 50, 400, 0))],
        "bare-worker": [(Load(1100, 100, 900, 5), Load(600, 60, 500, 0))],
        "demo": [(Load(1200, 200, 900, 5), Load(630, 60, 480, 0))],
    }
    assert results["demo"][0][1].phases == (60, 420, 150)
    text = report_boot(results, (1.5, 2.5))
    assert "load average 1.5 → 2.5" in text
    assert "target: demo cold ≤ 1.10× bare: 1.20×: MISSED" in text
    assert "target: demo warm ≤ 1.10× bare worker (the demo's Python runs in a worker): 1.05×: met" in text
    assert "(against the main-thread bare page: 1.26×)" in text
    phases = next(line for line in text.splitlines() if line.startswith("ratio demo / bare-worker") and "×" in line
                  and len(line.split()) > 8)
    # cold: nav → Pyodide 200/100, Pyodide + wheels 700/800, Python 300/200; warm: 60/60, 420/440, 150/100
    assert phases.split()[-6:] == ["2.00×", "0.88×", "1.50×", "1.00×", "0.95×", "1.50×"]
