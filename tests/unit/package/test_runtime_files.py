"""pyclient's browser wheel is written from the package's files: the package data it lists is
what pyproject.toml ships, and the same files give a byte-identical wheel."""

from __future__ import annotations

import json
import tomllib
import zipfile
from pathlib import Path

import pytest

from pyclient.server import PACKAGE_DATA, package_files
from pyclient.server._runtime import _build_pyclient_wheel, _source_hash

ROOT = Path(__file__).resolve().parents[3]


def test_package_data_matches_pyproject():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert sorted(setuptools["package-data"]["pyclient"]) == sorted(PACKAGE_DATA)
    names = {p.relative_to(ROOT / "pyclient").as_posix() for p in package_files(ROOT / "pyclient")}
    assert "_tools/_client_tool.py" in names and "browser/assets/renderer.js" in names
    for pattern in PACKAGE_DATA:  # each entry (a glob) names at least one file
        assert any(Path(name).match(pattern) for name in names), pattern


def test_same_files_give_a_byte_identical_wheel(tmp_path):
    package = ROOT / "pyclient"
    digest = _source_hash(package)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _build_pyclient_wheel(tmp_path / "a", package, digest)
    second = _build_pyclient_wheel(tmp_path / "b", package, digest)
    assert first.name == second.name and f"+g{digest[:10]}" in first.name
    assert first.read_bytes() == second.read_bytes()


def _wheel(folder: Path, name: str, *requires: str) -> Path:
    wheel = folder / f"{name}-1.0-py3-none-any.whl"
    metadata = "".join([f"Name: {name}\nVersion: 1.0\n", *(f"Requires-Dist: {r}\n" for r in requires)])
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr(f"{name}/__init__.py", "")
        zf.writestr(f"{name}-1.0.dist-info/METADATA", metadata)
    return wheel


def test_the_lock_lists_the_local_wheels_and_refuses_a_dependency_missing_from_them(tmp_path):
    from pyclient.server._lock import file_sha256, write_lock
    from pyclient.server._runtime import BuildError, _write_lock

    app = _wheel(tmp_path, "app", "lib>=1", "tzdata", "extra_thing; extra == 'dev'")
    _wheel(tmp_path, "lib")
    assert write_lock(tmp_path, {"info": {"arch": "wasm32"}}) == []
    lock = json.loads((tmp_path / "pyodide-lock.json").read_text())
    assert lock["info"] == {"arch": "wasm32"}
    assert lock["packages"]["app"]["depends"] == ["lib"]  # tzdata: the page does without it
    assert lock["packages"]["app"]["sha256"] == file_sha256(app)
    (tmp_path / "pyodide-lock.json").unlink()
    _wheel(tmp_path, "other", "nowhere")
    with pytest.raises(BuildError, match="other needs 'nowhere', which is not among the downloaded wheels"):
        _write_lock(tmp_path, {"info": {}})
    assert not (tmp_path / "pyodide-lock.json").exists()
