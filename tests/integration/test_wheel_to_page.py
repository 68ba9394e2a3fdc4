"""From the wheel to a page in Chromium, as a new user gets there: the session's wheel installed in a
fresh virtual environment, `pyclient vendor` into a folder holding a page written only from
docs/getting-started.md (its "Save this as" blocks, so the guide is what is tested), that folder
served by a plain static server (`python -m http.server` from the venv), and the embedded agent
from the venv (`pyclient serve` on another port, `--allow-origin` the static site's origin, as the
guide's deployment section says). The page's tool is called and its result quoted back.

In worker mode too: a page whose Python runs in a PyScript worker (after pyclient.js, which the
wheel carries), vendored by the venv's `pyclient vendor`, served as Netlify would serve it (each
file with the headers the vendored `_headers` names for its path, and no other), completes an
element-less thread round trip from the worker, against the venv's agent on another origin.

And the README's quick start, as it reads: `pyclient new` from the venv in an empty folder, then
the two commands it prints, run as printed: the starter's own test passes (with no
PytestRemovedIn10Warning), and the served starter answers in Chromium.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from email.parser import Parser
from pathlib import Path

import httpx
import pytest

import pyclient
from devserver.background import ServerThread, free_port
from tests.integration.conftest import ROOT, run

GUIDE = ROOT / "docs" / "getting-started.md"
# "Save this as `NAME`:", a blank line, then the fenced block: the files a page author writes.
SAVED = re.compile(r"^Save this as `([^`]+)`:\n\n```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
MESSAGE = "Set the heading to Hello world"


def guide_files() -> dict[str, str]:
    return dict(SAVED.findall(GUIDE.read_text(encoding="utf-8")))


@contextmanager
def process(*args: str | Path, ready: str, env: dict[str, str], cwd: Path | None = None) -> Iterator[None]:
    """Run a server process (in `cwd`) until the block ends, once `ready` (a URL) answers."""
    proc = subprocess.Popen([str(a) for a in args], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"{args[:3]} exited {proc.returncode}: {proc.communicate()[1][-3000:]}"
            try:
                httpx.get(ready, timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, f"{args[:3]} did not answer {ready} within 120 s"
                time.sleep(0.2)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def test_the_wheel_carries_the_page_files_and_its_metadata(installed_wheel):
    with zipfile.ZipFile(installed_wheel.wheel) as wheel:
        names = set(wheel.namelist())
        dist_info = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(wheel.read(f"{dist_info}/METADATA").decode())
        entry_points = wheel.read(f"{dist_info}/entry_points.txt").decode()
    assert {"pyclient/py.typed", f"{dist_info}/licenses/LICENSE"} <= names
    # The page's JavaScript and the chat's stylesheet (`pyclient serve` serves them at /pyclient/,
    # `pyclient vendor` copies them) and the service worker.
    assert {"pyclient/browser/assets/pyclient.js", "pyclient/browser/assets/renderer.js",
            "pyclient/browser/assets/chat.css", "pyclient/browser/assets/coi-worker.js"} <= names
    assert not [n for n in names if n.startswith(("tests/", "devserver/", "web/", "stubs/"))]
    assert (meta["Name"], meta["Version"], meta["License-Expression"]) == ("pyclient-agui", pyclient.__version__, "MIT")
    extras = set(meta.get_all("Provides-Extra"))
    assert {"cpython", "server", "testing", "openai", "anthropic", "google", "groq", "mistral"} <= extras
    assert any(r.startswith("httpx") and 'extra == "cpython"' in r for r in meta.get_all("Requires-Dist"))
    assert meta["Author"] == "pyclient contributors" and len(meta.get_all("Project-URL")) == 4
    assert "pyclient = pyclient.server.cli:main" in entry_points
    assert "pyclient = pyclient.testing.plugin" in entry_points


@pytest.mark.chromium
def test_a_page_written_from_the_guide_runs_from_the_vendored_wheel(tmp_path, runtime, installed_wheel,
                                                                   pyclient_browser, watch_callback_errors):
    files = guide_files()
    assert sorted(files) == ["index.html", "main.py"]
    assert files["main.py"].count('url="/agent"') == 1
    static_port, agent_port = free_port(), free_port()
    static, agent = f"http://127.0.0.1:{static_port}", f"http://127.0.0.1:{agent_port}"
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(files["index.html"])
    # The guide's deployment step: on a static host, the page names its agent server's full URL.
    (site / "main.py").write_text(files["main.py"].replace('url="/agent"', f'url="{agent}/agent"'))

    shutil.copytree(runtime, tmp_path / "runtime")  # a copy of the session's: nothing is downloaded
    env = installed_wheel.env(tmp_path / "runtime")
    output = run(installed_wheel.bin / "pyclient", "vendor", site, cwd=tmp_path, env=env)
    assert "total" in output and (site / "pyscript.json").is_file() and (site / "pyscript" / "core.js").is_file()
    lock = (site / "pyodide" / "pyodide-lock.json").read_text()
    assert '"pyclient-agui"' in lock

    (tmp_path / "nothing").mkdir()
    with ExitStack() as stack:
        stack.enter_context(process(
            installed_wheel.bin / "pyclient", "serve", tmp_path / "nothing", "--port", str(agent_port),
            "--allow-origin", static, ready=f"{agent}/pyscript.json", env=env))
        stack.enter_context(process(
            installed_wheel.python, "-m", "http.server", str(static_port), "--bind", "127.0.0.1",
            "--directory", site, ready=f"{static}/index.html", env=env))
        drive_the_page(pyclient_browser, static, watch_callback_errors)


WORKER_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Worker mode</title>
  <link rel="icon" href="data:,">
  <script type="module" src="pyclient/pyclient.js"></script>
  <script type="module" src="pyscript/core.js"></script>
</head>
<body>
  <h1>Before</h1>
  <script type="py" worker src="worker.py" config="pyscript.json"></script>
</body>
</html>
"""
# The thread lives in the worker; its tool changes the page's heading through `pyscript.document`.
WORKER_PY = '''\
import json
import traceback

from pyscript import RUNNING_IN_WORKER, document
from pyclient import Agent, client_tool


@client_tool
def set_heading(text: str) -> str:
    """Set the page's heading."""
    document.querySelector("h1").textContent = text
    return f"the heading is now {text}"


async def main():
    root = document.documentElement
    try:
        thread = Agent("worker", url="AGENT/agent", client_tools=[set_heading]).thread()
        await thread.send("Set the heading to Welcome")
        root.dataset.roundTrip = json.dumps({"in_worker": bool(RUNNING_IN_WORKER), "status": thread.run_status,
                                             "answer": str(thread.messages[-1].content)})
    except Exception:
        root.dataset.error = traceback.format_exc()
    root.dataset.pyclient = "ready"


await main()
'''


def netlify_like(site: Path):
    """An ASGI app serving `site` as Netlify or Cloudflare Pages would: each file, plus the headers its
    `_headers` file names for the request's path (exact paths, the only kind vendor writes)."""
    from pyclient.server import StaticDir

    rules: dict[str, list[tuple[bytes, bytes]]] = {}
    for line in (site / "_headers").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if not line[0].isspace():
            path = rules.setdefault(line.strip(), [])
        else:
            name, _, value = line.partition(":")
            path.append((name.strip().lower().encode(), value.strip().encode()))
    static = StaticDir(site)

    async def app(scope, receive, send):
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *rules.get(scope["path"], [])]
            await send(message)

        await static(scope, receive, send_with_headers)

    return app


@pytest.mark.chromium
def test_a_worker_page_runs_from_the_vendored_wheel_under_the_headers_of_its_headers_file(
        tmp_path, runtime, installed_wheel, pyclient_browser, watch_callback_errors):
    from pyclient.testing import PyclientPage

    site = tmp_path / "site"
    site.mkdir()
    (site / "worker.html").write_text(WORKER_PAGE)
    shutil.copytree(runtime, tmp_path / "runtime")  # a copy of the session's: nothing is downloaded
    env = installed_wheel.env(tmp_path / "runtime")
    output = run(installed_wheel.bin / "pyclient", "vendor", site, cwd=tmp_path, env=env)
    assert "Worker pages (worker.html)" in output
    assert (site / "pyclient" / "pyclient.js").is_file() and (site / "coi-worker.js").is_file()
    assert "\n/worker.html\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: credentialless\n" \
        in (site / "_headers").read_text()

    agent_port = free_port()
    agent = f"http://127.0.0.1:{agent_port}"
    (site / "worker.py").write_text(WORKER_PY.replace("AGENT", agent))
    (tmp_path / "nothing").mkdir()
    with ServerThread(netlify_like(site)) as static, process(
            installed_wheel.bin / "pyclient", "serve", tmp_path / "nothing", "--port", str(agent_port),
            "--allow-origin", static.url, ready=f"{agent}/pyscript.json", env=env):
        context = pyclient_browser.new_context(base_url=static.url)
        watch_callback_errors(context)
        try:
            guarded = PyclientPage(context.new_page())
            page = guarded.open("/worker.html", ready="document.documentElement.dataset.pyclient === 'ready'")
            root = page.locator("html")
            assert root.get_attribute("data-error") is None, root.get_attribute("data-error")
            assert (root.get_attribute("data-pyclient-mode"), page.evaluate("crossOriginIsolated")) == ("worker", True)
            trip = json.loads(root.get_attribute("data-round-trip"))
            assert trip == {"in_worker": True, "status": "idle", "answer": trip["answer"]}
            assert "the heading is now Welcome" in trip["answer"]
            assert page.locator("h1").text_content() == "Welcome"
            guarded.check()
        finally:
            context.close()


def drive_the_page(browser, static: str, watch_callback_errors) -> None:
    """In the session's Chromium (the plugin's `pyclient_browser`: one Playwright per session)."""
    from pyclient.testing import PyclientPage

    context = browser.new_context(base_url=static)
    watch_callback_errors(context)
    try:
        guarded = PyclientPage(context.new_page())
        page = guarded.open("/")
        assert page.locator("#title").text_content() == "Hello"
        guarded.send(MESSAGE)
        page.locator("#title", has_text="Hello world").wait_for(timeout=30_000)
        answer = "set_heading returned: \"the heading is now 'Hello world'\""
        page.locator(".pyclient-chat", has_text=answer).wait_for(timeout=30_000)
        guarded.wait_for_status("idle")
        assert page.locator(".pyclient-tool[data-tool='set_heading']").count() == 1
        guarded.check()  # nothing left 127.0.0.1, nothing went uncaught
    finally:
        context.close()


@pytest.mark.chromium
def test_a_starter_from_pyclient_new_passes_its_own_test_and_serves(tmp_path, runtime, installed_wheel,
                                                                    pyclient_browser, watch_callback_errors):
    shutil.copytree(runtime, tmp_path / "runtime")  # a copy of the session's: nothing is downloaded
    env = installed_wheel.env(tmp_path / "runtime")
    env["PATH"] = f"{installed_wheel.bin}{os.pathsep}{env['PATH']}"  # the venv's commands, as once activated
    output = run("pyclient", "new", "my-site", cwd=tmp_path, env=env)
    assert sorted(p.name for p in (tmp_path / "my-site").iterdir()) == [
        "index.html", "main.py", "pyscript.json", "test_page.py"]
    lines = output.splitlines()
    commands = [re.split(r" {2,}", line.strip())[0] for line in lines[lines.index("Next:") + 1:]]
    assert commands == ["cd my-site && pyclient serve", "cd my-site && pytest test_page.py"]

    tested = run("sh", "-c", commands[1], cwd=tmp_path, env=env)  # as printed
    assert re.search(r"^=+ 1 passed in [\d.]+s =+$", tested, re.MULTILINE), tested[-2000:]
    assert "PytestRemovedIn10Warning" not in tested and "warnings summary" not in tested

    port = free_port()
    # `cd my-site && pyclient serve`, on a free port; exec, so that terminating the process stops the server.
    with process("sh", "-c", f"{commands[0].replace('pyclient serve', 'exec pyclient serve')} --port {port}",
                 ready=f"http://127.0.0.1:{port}/pyscript.json", env=env, cwd=tmp_path):
        drive_the_page(pyclient_browser, f"http://127.0.0.1:{port}", watch_callback_errors)
