"""bench/boot.py's report: each page's phases, the ratios against both bare pages, the composer's
time at first paint, the sends, and the targets (cold against the bare page, warm against the
bare worker page, the demo's own kind)."""

from __future__ import annotations

from bench.boot import Load, Sends, report_boot, report_sends


def test_report_shows_phases_ratios_input_and_the_targets():
    results = {
        "bare": [(Load(1000, 100, 800, 5, None), Load(500, 50, 400, 0, None))],
        "bare-worker": [(Load(1100, 100, 900, 5, None), Load(600, 60, 500, 0, None))],
        "demo": [(Load(1200, 200, 900, 5, 250), Load(630, 60, 480, 0, 120))],
        "shell": [(Load(1000, 200, 900, 5, 320), Load(500, 60, 480, 0, 100))],
    }
    assert results["demo"][0][1].phases == (60, 420, 150)
    text = report_boot(results, (1.5, 2.5))
    assert "load average 1.5 → 2.5" in text
    assert "target: demo cold ≤ 1.10× bare: 1.20×: MISSED" in text
    assert "target: demo warm ≤ 1.15× bare worker (the demo's Python runs in a worker): 1.05×: met" in text
    assert "(against the main-thread bare page: 1.26×)" in text
    # The composer's time, for the pages with a chat only; the slowest median decides.
    assert "target: composer takes input ≤ 300 ms, median, each chat page, cold and warm: slowest 320 ms: MISSED" in text
    assert not any(line.startswith("bare PyScript") and line.split()[-1] == "250" for line in text.splitlines())
    phases = next(line for line in text.splitlines() if line.startswith("ratio demo / bare-worker") and "×" in line
                  and len(line.split()) > 8)
    # cold: nav → Pyodide 200/100, Pyodide + wheels 700/800, Python 300/200; warm: 60/60, 420/440, 150/100
    assert phases.split()[-6:] == ["2.00×", "0.88×", "1.50×", "1.00×", "0.95×", "1.50×"]


def test_the_sends_report_their_p95_and_whether_the_early_message_went_once():
    text = report_sends(Sends(early_at=400, early_input=150, early_requests=1, latencies=[5.0] * 18 + [80.0, 90.0]))
    assert "250 ms after the composer took input" in text
    assert "p95 80 ms" in text and "target: p95 ≤ 50 ms: MISSED; exactly once: met" in text
    text = report_sends(Sends(400, 150, 2, [5.0] * 20))
    assert "target: p95 ≤ 50 ms: met; exactly once: MISSED" in text
