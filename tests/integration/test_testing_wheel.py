"""pyclient's wheel with the `testing` extra, installed in a fresh virtual environment, runs the
README's sample page project (examples/testing/) from a folder outside the repository: the
plugin loads through its `pytest11` entry point and needs nothing from this repository's tests.

About a minute: building the wheel and installing it with its dependencies (pip's cache, no
downloads when warm) ~30 s, the sample's two Chromium tests ~25 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{args[:4]} failed ({proc.returncode}):\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc.stdout


def test_the_sample_project_passes_with_the_installed_wheel(tmp_path, runtime):
    # The wheel, built from a copy of the sources (pip builds in place: the checkout stays clean).
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "pyclient", source / "pyclient", ignore=shutil.ignore_patterns("__pycache__"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
        "-w", tmp_path / "dist", source, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("pyclient-*.whl"))

    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", f"{wheel}[testing]", cwd=tmp_path)

    # The sample project, alone in a folder outside the repository; a copy of the session's
    # runtime, so the plugin's build only writes the installed pyclient's wheel and lock.
    project = tmp_path / "project"
    shutil.copytree(ROOT / "examples" / "testing", project, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(runtime, tmp_path / "runtime")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "PYTEST", "VIRTUAL_ENV"))}
    env["PYCLIENT_RUNTIME_DIR"] = str(tmp_path / "runtime")
    output = run(python, "-m", "pytest", "-p", "no:cacheprovider", "-v", cwd=project, env=env)

    assert "test_add_note" in output and "test_clear_notes_asks_first" in output
    assert "2 passed" in output
    installed = run(python, "-c", "import pyclient; from importlib.metadata import entry_points; "
                    "print(pyclient.__file__, [e.value for e in entry_points(group='pytest11')])", cwd=project, env=env)
    assert str(ROOT) not in installed and "'pyclient.testing.plugin'" in installed
    assert list((tmp_path / "runtime" / "pyodide").glob("pyclient-*+g*.whl"))
