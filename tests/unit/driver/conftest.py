"""Fixtures of the driver's tests."""

import pytest

from pyclient import FileStore, MemoryStore


@pytest.fixture(params=["memory", "file"])
def store(request, tmp_path):
    """Each test once with a `MemoryStore` and once with a `FileStore` in a fresh folder."""
    return MemoryStore() if request.param == "memory" else FileStore(tmp_path / "threads")
