"""pyclient's browser wheel is written from the package's files: the package data it lists is
what pyproject.toml ships, and the same files give a byte-identical wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

from pyclient.server import PACKAGE_DATA, package_files
from pyclient.server._runtime import _build_pyclient_wheel, _source_hash

ROOT = Path(__file__).resolve().parents[2]


def test_package_data_matches_pyproject():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert sorted(setuptools["package-data"]["pyclient"]) == sorted(PACKAGE_DATA)
    names = {p.relative_to(ROOT / "pyclient").as_posix() for p in package_files(ROOT / "pyclient")}
    assert "_tools.py" in names and "browser/assets/renderer.js" in names
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
