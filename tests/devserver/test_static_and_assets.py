"""The dev server's static side and the runtime build: MIME types, gzip, caching, COOP/COEP,
and a build that is instant when nothing changed and rebuilds pyclient's wheel when it did."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import zipfile

import httpx
import pytest

from devserver import assets
from devserver.app import create_app
from devserver.background import ServerThread
from devserver.static import MIN_GZIP_SIZE
from pyclient.server import _runtime
from pyclient.server._bytecode import pyc_name


@pytest.fixture(scope="module")
def servers(runtime):
    with ServerThread(create_app(runtime=runtime)) as plain, \
            ServerThread(create_app(runtime=runtime, coi=True)) as isolated:
        yield plain.url, isolated.url


@pytest.mark.parametrize(
    ("path", "media_type", "gzipped"),
    [
        ("/pyodide/pyodide.asm.wasm", "application/wasm", True),
        ("/pyodide/pyodide.mjs", "text/javascript", True),
        ("/pyodide/pyodide-lock.json", "application/json", True),
        ("/pyodide/python_stdlib.zip", "application/zip", False),  # already deflated
        ("/pyscript/core.css", "text/css", False),  # under MIN_GZIP_SIZE: not worth it
        ("/demo.css", "text/css", True),
        ("/", "text/html", None),  # None: gzipped when at least MIN_GZIP_SIZE bytes
    ],
)
def test_mime_types_and_gzip(servers, path, media_type, gzipped):
    plain, _ = servers
    response = httpx.get(plain + path, headers={"accept-encoding": "gzip"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith(media_type)
    if gzipped is None:
        gzipped = len(response.content) >= MIN_GZIP_SIZE
    assert (response.headers.get("content-encoding") == "gzip") is gzipped
    identity = httpx.get(plain + path, headers={"accept-encoding": "identity"})
    assert "content-encoding" not in identity.headers
    assert response.content == identity.content  # httpx decoded the gzip: same bytes


def test_wasm_is_served_much_smaller_gzipped(servers):
    plain, _ = servers
    with httpx.stream("GET", plain + "/pyodide/pyodide.asm.wasm", headers={"accept-encoding": "gzip"}) as response:
        raw = b"".join(response.iter_raw())
    assert len(gzip.decompress(raw)) > 2 * len(raw)


def test_cache_headers_and_revalidation(servers):
    plain, _ = servers
    wasm = httpx.get(plain + "/pyodide/pyodide.asm.wasm")
    assert wasm.headers["cache-control"] == "public, max-age=86400"
    for path in ("/", "/pyodide/pyodide-lock.json"):  # change while you work: always revalidate
        page = httpx.get(plain + path)
        assert page.headers["cache-control"] == "no-cache"
        again = httpx.get(plain + path, headers={"if-none-match": page.headers["etag"]})
        assert again.status_code == 304 and again.content == b""


def test_no_path_escapes_the_served_folders(servers):
    plain, _ = servers
    for path in ("/../pyproject.toml", "/pyodide/../../serve.py", "/%2e%2e/serve.py"):
        assert httpx.get(plain + path).status_code == 404


def test_coi_adds_coop_coep_only_when_asked(servers):
    plain, isolated = servers
    # By default only a worker page (the demo) is isolated; a main-thread page is not.
    assert "cross-origin-opener-policy" not in httpx.get(plain + "/tests/chat_ui.html").headers
    assert httpx.get(plain + "/").headers["cross-origin-embedder-policy"] == "credentialless"
    headers = httpx.get(isolated + "/tests/chat_ui.html").headers
    assert headers["cross-origin-opener-policy"] == "same-origin"
    assert headers["cross-origin-embedder-policy"] == "credentialless"


def test_lock_lists_every_served_wheel_with_its_sha256(runtime):
    pyodide = runtime / "pyodide"
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    wheels = sorted(p.name for p in pyodide.glob("*.whl"))
    assert sorted(entry["file_name"] for entry in lock["packages"].values()) == wheels
    for entry in lock["packages"].values():
        assert entry["sha256"] == hashlib.sha256((pyodide / entry["file_name"]).read_bytes()).hexdigest()
        assert all(dep in lock["packages"] for dep in entry["depends"]), entry["name"]
    assert {"pyclient-agui", "pydantic", "pydantic-core", "ag-ui-protocol", "jsonpatch"} <= set(lock["packages"])
    assert lock["packages"]["pydantic-core"]["file_name"].endswith("pyemscripten_2026_0_wasm32.whl")


def test_rebuild_with_nothing_changed_is_instant(runtime):
    def files() -> dict[str, int]:
        return {str(path): path.stat().st_mtime_ns for path in runtime.rglob("*")}

    before = files()
    assert assets.build() == runtime
    assert files() == before   # nothing written again: no wheel built, no file copied


def test_changed_source_gives_a_new_wheel_and_lock(tmp_path, runtime, monkeypatch):
    # A copy of the package and of the runtime, so the real ones stay.
    root = tmp_path / "project"
    shutil.copytree(assets.ROOT / "pyclient", root / "pyclient")
    shutil.copy(assets.ROOT / "pyproject.toml", root)  # a checkout: its metadata comes from here
    copy = tmp_path / "runtime"
    shutil.copytree(runtime, copy)
    assets.build(copy, package=root / "pyclient")  # the copy's stamp names the real sources: same hash, nothing to do
    before = {p.name for p in (copy / "pyodide").glob("pyclient_agui-*.whl")}
    lock_before = (copy / "pyodide" / "pyodide-lock.json").read_text()

    (root / "pyclient" / "_base" / "_errors.py").write_text((root / "pyclient" / "_base" / "_errors.py").read_text() + "\n# changed\n")
    # Only pyclient's wheel and the lock are rebuilt: nothing is downloaded.
    monkeypatch.setattr(_runtime, "_npm_pack", lambda *args: pytest.fail("npm pack on a pyclient change"))
    monkeypatch.setattr(_runtime, "_pip_download", lambda *args: pytest.fail("pip download on a pyclient change"))
    assets.build(copy, package=root / "pyclient")
    after = {p.name for p in (copy / "pyodide").glob("pyclient_agui-*.whl")}
    assert len(after) == 1 and after != before  # the old wheel is gone, the new one has a new name
    lock = json.loads((copy / "pyodide" / "pyodide-lock.json").read_text())
    assert lock["packages"]["pyclient-agui"]["file_name"] == next(iter(after))
    assert (copy / "pyodide" / "pyodide-lock.json").read_text() != lock_before
    with zipfile.ZipFile(copy / "pyodide" / next(iter(after))) as wheel:
        compiled = wheel.read("pyclient/_base/__pycache__/_errors.cpython-314.pyc")
        assert b"# changed" in wheel.read("pyclient/_base/_errors.py")
    # Bytecode of the changed source: unchecked-hash (flags 0b01), and not the old file's.
    with zipfile.ZipFile(next((runtime / "pyodide").glob("pyclient_agui-*.whl"))) as unchanged:
        old_compiled = unchanged.read("pyclient/_base/__pycache__/_errors.cpython-314.pyc")
    assert compiled[4:8] == (1).to_bytes(4, "little") and compiled[8:16] != old_compiled[8:16]


def test_wheel_carries_bytecode_for_every_module(runtime):
    """The page compiles none of pyclient's modules (tests/e2e/test_bytecode_in_page.py checks it is used)."""
    wheel_path = next((runtime / "pyodide").glob("pyclient_agui-*.whl"))
    with zipfile.ZipFile(wheel_path) as wheel:
        names = set(wheel.namelist())
    sources = {name for name in names if name.endswith(".py")}
    assert "pyclient/browser/_chat/_chat.py" in sources
    for source in sources:
        assert pyc_name(source, "cpython-314") in names, source
    # What no page imports is not unpacked at every boot.
    assert not [name for name in names if name.startswith(("pyclient/server/", "pyclient/testing/"))]


def test_stdlib_zip_has_bytecode_beside_each_source(runtime):
    with zipfile.ZipFile(runtime / "pyodide" / "python_stdlib.zip") as stdlib:
        names = set(stdlib.namelist())
        header = stdlib.read("json/decoder.pyc")[:8]
    sources = {name for name in names if name.endswith(".py")}
    assert "json/decoder.py" in sources and all(name + "c" in names for name in sources)
    assert header[2:4] == b"\r\n" and header[4:8] == (1).to_bytes(4, "little")  # a magic number; unchecked-hash
