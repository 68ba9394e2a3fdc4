"""Cross-origin isolation as `pyclient serve` and `pyclient vendor` give it, without a browser: which
pages have a worker script, the headers `create_app` sends in each `coi` mode (a worker page, a
main-thread page, the runtime, pyclient's own files at /pyclient/), the command's `--coi` and
`--no-coi`, and the `_headers` file and service worker `vendor` writes, kept when they are the
author's. tests/e2e/test_worker_isolation.py checks in Chromium that these headers isolate."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from pyclient.server import create_app, vendor
from pyclient.server._isolation import (
    headers_file,
    page_paths,
    runs_python_in_worker,
    worker_pages,
)
from pyclient.server._runtime import ASSETS, COI_WORKER
from pyclient.server.cli import parser

COOP, COEP = "cross-origin-opener-policy", "cross-origin-embedder-policy"
WORKER_PAGE = '<!doctype html><script type="py" worker src="main.py" config="pyscript.json"></script>'
MAIN_PAGE = '<!doctype html><script type="py" src="main.py" config="pyscript.json"></script>'


@pytest.mark.parametrize(("html", "expected"), [
    ('<script type="py" worker src="main.py"></script>', True),
    ("<SCRIPT worker TYPE='mpy'>print(1)</SCRIPT>", True),
    ('<script type="py" worker="">x</script>', True),
    ("<py-script worker>print(1)</py-script>", True),
    ('<mpy-script worker src="a.py"></mpy-script>', True),
    ('<script type="py" src="worker.py"></script>', False),            # a file named worker, on the main thread
    ('<script type="module" worker src="x.js"></script>', False),     # not Python
    ('<!-- <script type="py" worker></script> -->', False),           # commented out
    ("<py-script>print(1)</py-script>", False),
])
def test_a_page_runs_python_in_a_worker_when_a_python_script_has_the_worker_attribute(html, expected):
    assert runs_python_in_worker(html) is expected


def test_headers_file_lists_each_path_a_static_host_answers_a_worker_page_at():
    assert page_paths("index.html") == ["/", "/index.html"]
    assert page_paths("guides/index.html") == ["/guides/", "/guides/index.html"]
    assert page_paths("chat.html") == ["/chat.html", "/chat"]
    assert page_paths("my page.htm") == ["/my%20page.htm"]
    text = headers_file(["chat.html"])
    rules = [block.splitlines() for block in text.split("\n\n")[1:]]
    assert rules == [[path, "  Cross-Origin-Opener-Policy: same-origin", "  Cross-Origin-Embedder-Policy: credentialless"]
                     for path in ("/chat.html", "/chat")]
    assert all(line.startswith("#") for line in text.split("\n\n")[0].splitlines())  # the comment Netlify skips
    empty = headers_file([])
    assert "Cross-Origin" not in empty and "No page of the folder has a worker script yet." in empty


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "worker.html").write_text(WORKER_PAGE)
    (tmp_path / "main.html").write_text(MAIN_PAGE)
    return tmp_path


def get(client: TestClient, path: str) -> dict[str, str]:
    response = client.get(path)
    assert response.status_code == 200, path
    return dict(response.headers)


def test_serve_isolates_the_worker_pages_only_by_default(site, runtime):
    client = TestClient(create_app(site, runtime))
    worker = get(client, "/worker.html")
    assert (worker[COOP], worker[COEP]) == ("same-origin", "credentialless")
    for path in ("/main.html", "/pyscript/core.js", "/pyodide/pyodide.mjs", "/pyscript.json", "/pyclient/pyclient.js"):
        headers = get(client, path)
        assert COOP not in headers and COEP not in headers, path
    # A page that loses its worker script loses the headers (read again once it changes).
    (site / "worker.html").write_text(MAIN_PAGE)
    os.utime(site / "worker.html", ns=(1, 1))
    assert COOP not in get(client, "/worker.html")


def test_serve_isolates_every_response_with_coi_always_and_none_with_never(site, runtime):
    always = TestClient(create_app(site, runtime, coi="always"))
    for path in ("/worker.html", "/main.html", "/pyscript/core.js", "/pyclient/pyclient.js"):
        headers = get(always, path)
        assert (headers[COOP], headers[COEP]) == ("same-origin", "credentialless"), path
    never = TestClient(create_app(site, runtime, coi="never"))
    assert COOP not in get(never, "/worker.html") and COEP not in get(never, "/worker.html")
    with pytest.raises(ValueError, match=r"coi=True is not a mode: pass \"auto\", \"always\" or \"never\""):
        create_app(site, runtime, coi=True)  # type: ignore[arg-type]


def test_serve_serves_pyclients_javascript_and_the_chats_stylesheet_from_the_package(site, runtime):
    client = TestClient(create_app(site, runtime))
    for path in sorted(ASSETS.iterdir()):
        response = client.get(f"/pyclient/{path.name}")
        assert response.status_code == 200 and response.content == path.read_bytes(), path.name
        kind = "text/css" if path.suffix == ".css" else "text/javascript"
        assert response.headers["content-type"].startswith(kind), path.name
    assert client.get("/pyclient/pyclient.js").text.startswith('import "./renderer.js";\n')
    assert client.get("/pyclient/chat.css").text.startswith("/*")


def test_the_coi_flags_choose_the_mode(capsys):
    assert parser().parse_args(["serve"]).coi == "auto"
    assert parser().parse_args(["serve", "--coi"]).coi == "always"
    assert parser().parse_args(["serve", "--no-coi"]).coi == "never"
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--coi", "--no-coi"])
    capsys.readouterr()
    with pytest.raises(SystemExit):
        parser().parse_args(["serve", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert 'A page with a <script type="py" worker> is sent the cross-origin isolation headers' in help_text
    assert "--coi send the COOP/COEP headers (cross-origin isolation) with every response" in help_text
    assert "--no-coi never send them" in help_text


def test_vendor_writes_the_assets_headers_and_service_worker_and_keeps_the_authors(site, runtime):
    (site / "guides").mkdir()
    (site / "guides" / "index.html").write_text(WORKER_PAGE)
    report = vendor(site, runtime=runtime)
    assert report.worker_pages == ["guides/index.html", "worker.html"]
    assert report.files == {"pyscript.json": "written", "_headers": "written", "coi-worker.js": "written"}
    assert (site / "_headers").read_text() == headers_file(["guides/index.html", "worker.html"])
    assert (site / "coi-worker.js").read_bytes() == COI_WORKER.read_bytes()  # at the top: its scope is the site
    assets = [path for path in ASSETS.iterdir() if path != COI_WORKER]  # pyclient.js and what it imports
    assert sorted(p.name for p in (site / "pyclient").iterdir()) == sorted(p.name for p in assets)
    assert all((site / "pyclient" / p.name).read_bytes() == p.read_bytes() for p in assets)
    # The vendored runtime's own pages are not the author's pages.
    assert worker_pages(site, skip=("pyodide", "pyscript", "pyclient")) == report.worker_pages

    (site / "main.html").write_text(WORKER_PAGE)  # a new worker page: the next run lists it
    again = vendor(site, runtime=runtime)
    assert again.files == {"pyscript.json": "unchanged", "_headers": "updated", "coi-worker.js": "unchanged"}
    assert "/main.html\n" in (site / "_headers").read_text()

    (site / "_headers").write_text("/*\n  X-Mine: yes\n")  # the author's own
    (site / "coi-worker.js").write_text("// mine\n")
    kept = vendor(site, runtime=runtime)
    assert kept.files == {"pyscript.json": "unchanged", "_headers": "kept", "coi-worker.js": "kept"}
    assert (site / "_headers").read_text() == "/*\n  X-Mine: yes\n"
    assert (site / "coi-worker.js").read_text() == "// mine\n"
    forced = vendor(site, runtime=runtime, force=True)
    assert forced.files == {"pyscript.json": "unchanged", "_headers": "updated", "coi-worker.js": "updated"}
    record = json.loads((site / ".pyclient-vendor.json").read_text())
    assert record["folders"] == ["pyodide", "pyscript", "pyclient"] and set(record["files"]) == set(forced.files)


def test_vendor_refuses_a_pyclient_folder_it_did_not_write(tmp_path, runtime):
    from pyclient.server._vendor import VendorError

    (tmp_path / "pyclient").mkdir()
    with pytest.raises(VendorError, match="pyclient exists and pyclient vendor did not write it"):
        vendor(tmp_path, runtime=runtime)
