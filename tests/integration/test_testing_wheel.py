"""pyclient's wheel with the `testing` extra, installed in a fresh virtual environment, runs the
README's sample page project (examples/testing/) from a folder outside the repository: the
plugin loads through its `pytest11` entry point and needs nothing from this repository's tests.

The wheel and its virtual environment are the session's `installed_wheel` (built and installed
once, shared with test_wheel_to_page.py); the sample's two Chromium tests take ~25 s.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.integration.conftest import run

ROOT = Path(__file__).resolve().parents[2]


def test_the_sample_project_passes_with_the_installed_wheel(tmp_path, runtime, installed_wheel):
    # The sample project, alone in a folder outside the repository; a copy of the session's
    # runtime, so the plugin's build only writes the installed pyclient's wheel and lock.
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "testing", project, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(runtime, tmp_path / "runtime")
    env = installed_wheel.env(tmp_path / "runtime")
    output = run(installed_wheel.python, "-m", "pytest", "-p", "no:cacheprovider", "-v", cwd=project, env=env)

    assert "test_add_note" in output and "test_clear_notes_asks_first" in output
    assert "2 passed" in output
    assert "PytestRemovedIn10Warning" not in output  # the plugin filters pytest-playwright's own
    installed = run(installed_wheel.python, "-c", "import pyclient; from importlib.metadata import entry_points; "
                    "print(pyclient.__file__, [e.value for e in entry_points(group='pytest11')])", cwd=project, env=env)
    assert str(ROOT) not in installed and "'pyclient.testing.plugin'" in installed
    assert list((tmp_path / "runtime" / "pyodide").glob("pyclient_agui-*+g*.whl"))
