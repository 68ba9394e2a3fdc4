"""The `pyclient` command, run as a process (`python -m pyclient`, this checkout on PYTHONPATH):
one-line errors with exit status 2 before anything starts, `serve` serving a folder with the
runtime and an agent that answers (the embedded one, or another through `--agent`), CORS with
`--allow-origin`, `vendor` writing a static site without touching the author's config, and `new`
writing a starter without overwriting anything."""

from __future__ import annotations

import asyncio
import json
import os
import re

import httpx
import pytest

from devserver.background import free_port
from pyclient import Agent, client_tool
from pyclient.server import ASSETS
from tests.server.cli_process import ROOT, env, pyclient, serving


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    return f"the heading is now {text!r}"


def round_trip(agent_url: str) -> str:
    """One message through pyclient's CPython thread: the agent calls set_heading, gets its result, answers."""
    async def main() -> str:
        thread = Agent("cli", url=agent_url, client_tools=[set_heading]).thread()
        await thread.send("Set the heading to Hello world")
        assert thread.run_status == "idle", thread.error
        return str(thread.messages[-1].content)

    return asyncio.run(main())


@pytest.mark.parametrize(("argv", "message"), [
    (["serve", "--model", "gpt4o"],
     "pyclient serve: error: --model takes PROVIDER:NAME, e.g. openai:gpt-4o; providers: anthropic, google, groq, "
     "mistral, openai."),
    (["serve", "--model", "cohere:command-r"],
     "pyclient serve: error: --model cohere:command-r: unknown provider 'cohere'; providers: anthropic, google, "
     "groq, mistral, openai."),
    (["serve", "--agent", "127.0.0.1:9000/agent"],
     "pyclient serve: error: --agent takes the URL of an AG-UI endpoint, e.g. http://127.0.0.1:9000/agent; "
     "got '127.0.0.1:9000/agent'."),
    (["serve", "no-such-folder"],
     "pyclient serve: error: no-such-folder is not a folder: give the folder of your pages (default: the current one)."),
])
def test_bad_arguments_are_one_line_with_status_2(argv, message, tmp_path):
    proc = pyclient(*argv, environ=env(tmp_path / "never-built"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == message
    assert proc.stdout == "" and not (tmp_path / "never-built").exists()  # checked before any build


def test_a_provider_without_its_package_or_key_names_the_extra_or_the_variable(tmp_path):
    # anthropic's client is not among the test dependencies; the embedded agent's pydantic-ai is.
    proc = pyclient("serve", "--model", "anthropic:claude-sonnet-4-5", environ=env(tmp_path))
    assert (proc.returncode, proc.stderr.strip()) == (2, (
        "pyclient serve: error: --model anthropic:claude-sonnet-4-5 needs the anthropic extra: "
        "pip install 'pyclient-agui[anthropic]'."))
    assert "Traceback" not in proc.stderr
    # The key check, with a provider whose module is "installed" (a stand-in on PYTHONPATH).
    fake = tmp_path / "fake"
    (fake / "anthropic").mkdir(parents=True)
    (fake / "anthropic" / "__init__.py").write_text("")
    proc = pyclient("serve", "--model", "anthropic:claude-sonnet-4-5",
                    environ=env(tmp_path, PYTHONPATH=f"{ROOT}{os.pathsep}{fake}"))
    assert (proc.returncode, proc.stderr.strip()) == (2, (
        "pyclient serve: error: --model anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY."))


def test_help_and_version(tmp_path):
    for argv in (["--help"], ["serve", "--help"], ["vendor", "--help"], ["new", "--help"]):
        proc = pyclient(*argv, environ=env(tmp_path))
        assert proc.returncode == 0 and proc.stdout.startswith("usage: pyclient"), argv
    assert "--allow-origin ORIGIN" in pyclient("serve", "--help", environ=env(tmp_path)).stdout
    assert "--force" in pyclient("vendor", "--help", environ=env(tmp_path)).stdout
    import pyclient as package

    assert pyclient("--version", environ=env(tmp_path)).stdout.strip() == f"pyclient-agui {package.__version__}"


def test_serve_serves_a_folder_with_the_runtime_and_an_agent_that_answers(tmp_path, runtime):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>mine</title>")
    (site / "worker.html").write_text('<script type="py" worker src="main.py" config="pyscript.json"></script>')
    with serving(str(site), environ=env(runtime)) as served:
        url = served.url
        main_page = httpx.get(url + "/")
        assert main_page.text == "<!doctype html><title>mine</title>"
        # Only the worker page is cross-origin isolated (by default: neither --coi nor --no-coi).
        assert "cross-origin-opener-policy" not in main_page.headers
        worker = httpx.get(url + "/worker.html").headers
        assert (worker["cross-origin-opener-policy"], worker["cross-origin-embedder-policy"]) == (
            "same-origin", "credentialless")
        assert httpx.get(url + "/pyclient/pyclient.js").text.startswith('import "./renderer.js";')
        config = httpx.get(url + "/pyscript.json").json()  # no pyscript.json in the folder: the default
        assert config == {"interpreter": "./pyodide/pyodide.mjs", "packages": ["pyclient-agui"],
                          "packages_cache": "passthrough"}
        lock = httpx.get(url + "/pyodide/pyodide-lock.json").json()
        wheel = lock["packages"]["pyclient-agui"]["file_name"]
        assert wheel.startswith("pyclient_agui-") and httpx.get(f"{url}/pyodide/{wheel}").status_code == 200
        assert httpx.get(url + "/pyscript/core.js").status_code == 200
        answer = round_trip(url + "/agent")
    assert answer == "set_heading returned: \"the heading is now 'Hello world'\""


def test_serve_forwards_the_agent_and_allows_the_origins_it_is_told(tmp_path, runtime):
    site = tmp_path / "site"
    site.mkdir()
    (site / "pyscript.json").write_text('{"packages": ["mine"]}')  # the folder's own config wins
    with serving(str(site), environ=env(runtime)) as agent_server, \
            serving(str(site), "--agent", agent_server.url + "/agent", "--allow-origin", "http://127.0.0.1:1",
                    environ=env(runtime)) as served:
        url = served.url
        assert httpx.get(url + "/pyscript.json").json() == {"packages": ["mine"]}
        assert round_trip(url + "/agent") == "set_heading returned: \"the heading is now 'Hello world'\""
        preflight = httpx.options(url + "/agent", headers={
            "origin": "http://127.0.0.1:1", "access-control-request-method": "POST",
            "access-control-request-headers": "content-type"})
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "http://127.0.0.1:1"
        other = httpx.options(url + "/agent", headers={
            "origin": "http://127.0.0.1:2", "access-control-request-method": "POST"})
        assert "access-control-allow-origin" not in other.headers
    with serving(str(site), "--agent", f"http://127.0.0.1:{free_port()}/agent", "--coi",
                 environ=env(runtime)) as served:
        assert httpx.get(served.url + "/pyscript.json").headers["cross-origin-embedder-policy"] == "credentialless"
        down = httpx.post(served.url + "/agent", json={})
        assert down.status_code == 502 and "cannot be reached" in down.json()["detail"]
        logged = served.wait_for("POST /agent 502")
    assert "\n  COOP/COEP       on every response (--coi)\n" in served.stdout
    assert re.search(r"POST /agent 502 in \d+\.\d\d s: the agent at http://127\.0\.0\.1:\d+/agent \(--agent\) cannot "
                     r"be reached: ConnectError: .*\(POST http://127\.0\.0\.1:\d+/agent\)$", logged), logged


def test_vendor_writes_a_static_site_and_keeps_the_authors_config(tmp_path, runtime):
    site = tmp_path / "site"
    proc = pyclient("vendor", str(site), environ=env(runtime))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((site / "pyscript.json").read_text())["packages"] == ["pyclient-agui"]
    lock = json.loads((site / "pyodide" / "pyodide-lock.json").read_text())
    for entry in lock["packages"].values():  # every wheel the lock lists is there
        assert (site / "pyodide" / entry["file_name"]).is_file(), entry["name"]
    assert (site / "pyscript" / "core.js").is_file() and not list(site.rglob("*.map"))
    assert "total" in proc.stdout and "MB" in proc.stdout and "pyodide/" in proc.stdout

    (site / "pyscript.json").write_text('{"packages": ["pyclient-agui", "numpy"]}')  # the author edits it
    again = pyclient("vendor", str(site), environ=env(runtime))
    assert again.returncode == 0 and "Kept your own" in again.stdout and "--force" in again.stdout
    assert json.loads((site / "pyscript.json").read_text())["packages"] == ["pyclient-agui", "numpy"]
    (site / "_headers").write_text("/*\n  X-Frame-Options: DENY\n")  # the author's own headers
    kept = pyclient("vendor", str(site), environ=env(runtime))
    assert (f"Kept your own {site / '_headers'} (vendor did not write it; --force replaces it). Pages with a "
            '<script type="py" worker> need: Cross-Origin-Opener-Policy: same-origin; Cross-Origin-Embedder-Policy: '
            "credentialless.") in kept.stdout.splitlines()
    assert (site / "_headers").read_text() == "/*\n  X-Frame-Options: DENY\n"
    forced = pyclient("vendor", str(site), "--force", environ=env(runtime))
    assert forced.returncode == 0
    assert json.loads((site / "pyscript.json").read_text())["packages"] == ["pyclient-agui"]
    assert (site / "_headers").read_text().startswith("# Written by pyclient vendor")

    foreign = tmp_path / "foreign"
    (foreign / "pyodide").mkdir(parents=True)
    refused = pyclient("vendor", str(foreign), environ=env(runtime))
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert "pyclient vendor did not write it" in refused.stderr and "--force" in refused.stderr


def test_vendor_lists_every_file_and_folder_it_wrote_with_what_it_is_for(tmp_path, runtime):
    site = tmp_path / "site"
    site.mkdir()
    (site / "chat.html").write_text('<script type="py" worker src="main.py" config="pyscript.json"></script>')
    proc = pyclient("vendor", str(site), environ=env(runtime))
    assert proc.returncode == 0, proc.stderr
    listed = {line.split()[0]: line for line in proc.stdout.splitlines()[1:] if line.startswith("  ")}
    written = {path.name + ("/" if path.is_dir() else "") for path in site.iterdir()} - {"chat.html"}
    assert written == {"pyodide/", "pyscript/", "pyclient/", "pyscript.json", "_headers", "coi-worker.js",
                       ".pyclient-vendor.json"}
    assert set(listed) == written | {"total"}, proc.stdout
    assert re.fullmatch(r"  pyclient/ +\d+ files, [\d.]+ kB +pyclient.js, which pages load before PyScript: worker "
                        r"pages that are not isolated run on the main thread; chat.css, the chat's stylesheet, for "
                        r"pages that link it \(a strict Content-Security-Policy\)", listed["pyclient/"])
    assert (site / "pyclient" / "chat.css").read_bytes() == (ASSETS / "chat.css").read_bytes()
    assert listed["_headers"].endswith('COOP/COEP headers for the pages with a <script type="py" worker> (Netlify, '
                                       "Cloudflare Pages)")
    assert listed["coi-worker.js"].endswith("the same by a service worker, where headers cannot be set (GitHub "
                                            'Pages): pages opt in with data-coi-worker="coi-worker.js"')
    assert ('Worker pages (chat.html): _headers isolates them on Netlify and Cloudflare Pages; elsewhere, '
            'data-coi-worker="coi-worker.js" on the script tag of pyclient/pyclient.js lets its service worker do '
            "it.") in proc.stdout.splitlines()
    assert re.fullmatch(r"  pyodide/ +\d+ files, [\d.]+ MB +Pyodide, the page's wheels \(pyclient-agui's included\) "
                        r"and pyodide-lock.json, which lists them", listed["pyodide/"])
    assert listed["pyscript/"].endswith("PyScript, which starts Python in the page")
    assert listed["pyscript.json"].endswith("""the pages' PyScript config: the interpreter in pyodide/ and """
                                            """"packages": ["pyclient-agui"]""")
    assert re.fullmatch(r"  \.pyclient-vendor\.json +\d+ B +vendor's record of what it wrote, so the next run "
                        r"replaces exactly that \(no secret in it\)", listed[".pyclient-vendor.json"])


def test_a_build_without_npm_or_without_a_registry_is_one_line_naming_the_fix(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    no_npm = pyclient("vendor", str(tmp_path / "site"), environ=env(tmp_path / "runtime-a", PATH=str(empty)))
    assert no_npm.returncode == 1 and "Traceback" not in no_npm.stderr
    error = [line for line in no_npm.stderr.splitlines() if line.startswith("pyclient vendor: error:")]
    assert error == ["pyclient vendor: error: Cannot build pyclient's browser runtime: `npm` is not on PATH. "
                     "Install npm (Node.js) and pip, or point PYCLIENT_RUNTIME_DIR at a runtime folder built "
                     "elsewhere."]
    closed = f"http://127.0.0.1:{free_port()}/"
    offline = pyclient("vendor", str(tmp_path / "site"), environ=env(
        tmp_path / "runtime-b", npm_config_registry=closed, npm_config_fetch_retries="0"))
    assert offline.returncode == 1
    error = [line for line in offline.stderr.splitlines() if line.startswith("pyclient vendor: error:")]
    assert len(error) == 1 and "`npm pack --loglevel=error pyodide@314.0.7` failed: npm cannot reach its package registry" \
        in error[0] and "PYCLIENT_RUNTIME_DIR" in error[0] and "Traceback" not in offline.stderr
    assert "npm pack pyodide@314.0.7 ..." in offline.stderr  # the progress line came first


def test_the_testing_plugins_site_answers_the_same_default_config(tmp_path, runtime):
    from pyclient.testing import ServerThread, Site

    with ServerThread(Site(tmp_path, runtime)) as server:
        default = httpx.get(server.url + "/pyscript.json")
        (tmp_path / "pyscript.json").write_text('{"packages": ["mine"]}')
        own = httpx.get(server.url + "/pyscript.json")
    assert default.headers["content-type"] == "application/json"
    assert default.json() == {"interpreter": "./pyodide/pyodide.mjs", "packages": ["pyclient-agui"],
                              "packages_cache": "passthrough"}
    assert own.json() == {"packages": ["mine"]}


def test_new_writes_a_starter_and_prints_the_next_commands(tmp_path):
    from pyclient.server import page_config
    from pyclient.server._starter import starter_files

    site = tmp_path / "my-site"
    proc = pyclient("new", str(site), environ=env(tmp_path / "never-built"))
    assert (proc.returncode, proc.stderr) == (0, "")
    assert {p.name: p.read_text() for p in site.iterdir()} == starter_files()
    assert json.loads((site / "pyscript.json").read_text()) == page_config()
    lines = proc.stdout.splitlines()
    assert lines[0] == f"pyclient new: wrote a starter into {site}"
    assert [line.split()[0] for line in lines[1:5]] == ["index.html", "main.py", "pyscript.json", "test_page.py"]
    assert lines[5] == "Next:" and len(lines) == 8
    # Each command, then in words what it does.
    assert [re.split(r" {2,}", line.strip()) for line in lines[6:]] == [
        [f"cd {site} && pyclient serve", "serve it on http://127.0.0.1:8000/"],
        [f"cd {site} && pytest test_page.py", "test it in Chromium (pip install 'pyclient-agui[testing]' first)"],
    ]
    assert not (tmp_path / "never-built").exists()  # nothing is built


def test_new_refuses_to_overwrite_and_writes_nothing(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("mine")
    (site / "test_page.py").write_text("mine too")
    proc = pyclient("new", str(site), environ=env(tmp_path / "never-built"))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (f"pyclient new: error: {site} already has index.html and test_page.py; pyclient new "
                           "never overwrites a file. Give a new folder, or move those files away.\n")
    assert {p.name: p.read_text() for p in site.iterdir()} == {"index.html": "mine", "test_page.py": "mine too"}

    (tmp_path / "a-file").write_text("")
    proc = pyclient("new", str(tmp_path / "a-file"), environ=env(tmp_path / "never-built"))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.strip() == (f"pyclient new: error: {tmp_path / 'a-file'} is a file: give a folder for the "
                                   "starter (it is created if missing).")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "site"]
