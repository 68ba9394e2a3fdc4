"""`callback_errors` (tests/conftest.py) fails a test in which a listener or a save raised, and
only those: it runs the tests of `callback_error_cases.py` in a pytest of their own."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CASES = Path(__file__).with_name("callback_error_cases.py")


def test_callback_errors_fail_the_tests_they_happen_in(tmp_path):
    report = tmp_path / "report.xml"
    run = subprocess.run(
        # Without the plugins these tests do not use, the run takes 2 s instead of 5.
        [sys.executable, "-m", "pytest", str(CASES), "-q", f"--junitxml={report}", "-p", "no:cacheprovider",
         "-p", "no:langsmith_plugin", "-p", "no:playwright", "-p", "no:anyio"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    errors = {case.get("name"): " ".join(e.get("message", "") for e in case.iter("error"))
              for case in ET.parse(report).getroot().iter("testcase")}
    assert errors.keys() == {"test_a_listener_raises", "test_a_listener_raises_on_purpose",
                             "test_marked_but_nothing_raises", "test_a_save_fails", "test_nothing_raises"}
    assert "1 callback error(s) were logged and swallowed" in errors["test_a_listener_raises"]
    assert "callback error(s) were logged and swallowed" in errors["test_a_save_fails"]
    assert "marked `callback_errors_expected`, but no listener" in errors["test_marked_but_nothing_raises"]
    assert errors["test_a_listener_raises_on_purpose"] == errors["test_nothing_raises"] == ""
    # What the failure says: the record, with the callback's own exception.
    root = ET.parse(report).getroot()
    listener = root.find(".//testcase[@name='test_a_listener_raises']/error").text
    assert "pyclient: a thread listener raised on state (RuntimeError: listener bug)" in listener
    save = root.find(".//testcase[@name='test_a_save_fails']/error").text
    assert "pyclient: saving thread t1 failed: disk full" in save
