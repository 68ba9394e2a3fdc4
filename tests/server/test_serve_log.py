"""What `pyclient serve` says while it serves, run as a process on 127.0.0.1: a log line for each agent
run (status, duration, tool calls, outcome) and for each request it could not serve, with the cause
(the provider's error for `--model`, the upstream's status for `--agent`, a refused CORS preflight,
a path it does not serve); `-v` adds each event. Before it serves: a port in use is one line. While
it serves: a folder without index.html shows a page naming `pyclient new`, and a page that would be
blank offline is warned about once."""

from __future__ import annotations

import asyncio
import json
import re
import socket

import httpx
import pytest

from devserver.background import ServerThread, free_port
from pyclient import Agent
from tests.server.cli_process import env, pyclient, serving
from tests.server.test_cli import round_trip, set_heading

DURATION = r"in \d+\.\d\d s"
SECRET = "sk-test-0123456789-not-a-real-key"


def events(*payloads: dict[str, object]) -> list[bytes]:
    return [f"data: {json.dumps(p)}\n\n".encode() for p in payloads]


async def upstream(scope, receive, send):
    """An AG-UI server behind `--agent`, whose answer the request's threadId picks: "slow" streams
    RUN_STARTED and then nothing, "secret" fails with a RUN_ERROR quoting the key, "wrong" is 405."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    thread = json.loads(body or b"{}").get("threadId")
    if thread == "wrong":
        await send({"type": "http.response.start", "status": 405, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"Method Not Allowed (and the key " + SECRET.encode() + b")"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    started = {"type": "RUN_STARTED", "threadId": thread, "runId": "r1"}
    if thread == "secret":
        for chunk in events(started, {"type": "RUN_ERROR", "message": f"The key {SECRET} was refused."}):
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
        return
    await send({"type": "http.response.body", "body": events(started)[0], "more_body": True})
    await asyncio.sleep(30)  # until the client hangs up (the server cancels this)


def run_body(thread_id: str) -> dict[str, object]:
    return {"threadId": thread_id, "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "hi"}],
            "tools": [], "context": [], "state": {}, "forwardedProps": {}}


@pytest.fixture
def site(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>mine</title>")
    return site


def test_each_run_is_one_line_with_status_duration_tool_calls_and_outcome(site, runtime):
    with serving(str(site), environ=env(runtime)) as served:
        round_trip(served.url + "/agent")
        first = served.wait_for(r"^\S+ POST /agent 200 .*tool calls")
        follow_up = served.wait_for(r"^\S+ POST /agent 200 .*results sent")
    assert re.fullmatch(rf"\d\d:\d\d:\d\d POST /agent 200 {DURATION}: finished; tool calls: set_heading \(for the page\)",
                        first), first
    assert re.fullmatch(rf"\d\d:\d\d:\d\d POST /agent 200 {DURATION}: finished; results sent by the page: set_heading",
                        follow_up), follow_up
    assert not served.lines(" event "), "events are logged with -v only"
    assert "Each agent run and each failed request is logged below (-v adds the runs' events)." in served.stdout


def test_a_provider_that_cannot_be_reached_logs_its_cause_and_nothing_leaves_127_0_0_1(site, runtime):
    closed, dead_proxy = free_port(), free_port()
    # Anything but the base URL would go through a proxy on a closed local port, and fail there.
    environ = env(runtime, OPENAI_API_KEY=SECRET, OPENAI_BASE_URL=f"http://127.0.0.1:{closed}/v1",
                  HTTP_PROXY=f"http://127.0.0.1:{dead_proxy}", HTTPS_PROXY=f"http://127.0.0.1:{dead_proxy}",
                  ALL_PROXY=f"http://127.0.0.1:{dead_proxy}", NO_PROXY="127.0.0.1,localhost")
    with serving(str(site), "--model", "openai:gpt-4o", environ=environ) as served:
        async def send() -> str:
            thread = Agent("cli", url=served.url + "/agent", client_tools=[set_heading]).thread()
            await thread.send("hello")
            return str(thread.error)

        assert "Connection error" in asyncio.run(send())  # the page's side: RUN_ERROR's message alone
        line = served.wait_for(r"POST /agent 200 .*RUN_ERROR")
    assert re.fullmatch(
        rf"\S+ POST /agent 200 {DURATION}: error: RUN_ERROR 'Connection error\.'; cause: the agent failed: "
        rf"ModelConnectionError: Connection error\.: .*Connect call failed \('127\.0\.0\.1', {closed}\) "
        rf"\(POST http://127\.0\.0\.1:{closed}/v1/\w+\)", line), line
    assert SECRET not in "\n".join(served.log) + served.stdout


def test_the_upstreams_status_a_hang_up_and_a_key_in_an_error_are_logged_as_such(site, runtime):
    with ServerThread(upstream, log_level="critical") as agent, \
            serving(str(site), "--agent", agent.url + "/agent", environ=env(runtime, PYCLIENT_TEST_KEY=SECRET)) as served:
        wrong = httpx.post(served.url + "/agent", json=run_body("wrong"))
        assert wrong.status_code == 405
        with httpx.stream("POST", served.url + "/agent", json=run_body("slow")) as slow:
            next(slow.iter_lines())  # RUN_STARTED arrived; the client hangs up
        assert "was refused" in httpx.post(served.url + "/agent", json=run_body("secret")).text
        refused = served.wait_for(r"POST /agent 405")
        hung_up = served.wait_for(r"hung up")
        secret = served.wait_for(r"RUN_ERROR")
    assert re.fullmatch(rf"\S+ POST /agent 405 {DURATION}: the agent at {agent.url}/agent \(--agent\) answered "
                        r"405 Method Not Allowed", refused), refused
    assert re.fullmatch(rf"\S+ POST /agent 200 {DURATION}: the client hung up after 1 event\(s\)", hung_up), hung_up
    assert secret.endswith("error: RUN_ERROR 'The key *** was refused.'"), secret
    assert SECRET not in "\n".join(served.log)


def test_a_refused_cors_preflight_names_the_origin_and_allow_origin(site, runtime):
    preflight = {"access-control-request-method": "POST", "access-control-request-headers": "content-type"}
    with serving(str(site), environ=env(runtime)) as plain, \
            serving(str(site), "--allow-origin", "http://127.0.0.1:1", environ=env(runtime)) as allowing:
        httpx.options(plain.url + "/agent", headers={"origin": "http://127.0.0.1:1", **preflight})
        assert httpx.options(allowing.url + "/agent", headers={"origin": "http://127.0.0.1:1", **preflight}) \
            .status_code == 200
        httpx.options(allowing.url + "/agent", headers={"origin": "http://127.0.0.1:2", **preflight})
        httpx.options(allowing.url + "/agent", headers={"origin": "http://127.0.0.1:1",
                                                       "access-control-request-method": "PUT"})
        without_flag = plain.wait_for("CORS")
        other_origin = allowing.wait_for("CORS.*127.0.0.1:2")
        other_method = allowing.wait_for("CORS.*PUT")
    assert re.fullmatch(rf"\S+ OPTIONS /agent 405 {DURATION}: refused the CORS preflight from origin "
                        r"http://127.0.0.1:1: pass --allow-origin http://127.0.0.1:1 to let its pages call this server",
                        without_flag), without_flag
    assert re.fullmatch(rf"\S+ OPTIONS /agent 400 {DURATION}: refused the CORS preflight from origin "
                        r"http://127.0.0.1:2: pass --allow-origin http://127.0.0.1:2 to let its pages call this server",
                        other_origin), other_origin
    assert other_method.endswith("the origin is allowed, but not the method PUT (GET and POST are)"), other_method
    assert len(allowing.lines("CORS")) == 2, "the allowed preflight is not logged"


def test_a_path_not_served_and_a_post_elsewhere_are_logged_with_what_to_do(site, runtime):
    with serving(str(site), environ=env(runtime)) as served:
        assert httpx.get(served.url + "/main.py").status_code == 404
        assert httpx.get(served.url + "/pyodide/nothing.whl").status_code == 404
        assert httpx.post(served.url + "/agnet", json={}).status_code == 405
        assert httpx.get(served.url + "/a%0Afake%20line").status_code == 404
        assert httpx.post(served.url + "/agent", content=b"{}").status_code == 415
        assert httpx.get(served.url + "/favicon.ico").status_code == 404  # the browser's own: -v only
        assert httpx.post(served.url + "/agent", json={"threadId": "t"}).status_code == 422
        invalid = served.wait_for("POST /agent 422")
        missing = served.wait_for("GET /main.py")
        runtime_file = served.wait_for("GET /pyodide/nothing.whl")
        elsewhere = served.wait_for("POST /agnet")
        injected = served.wait_for("GET /a")
        unsupported = served.wait_for("POST /agent 415")
        assert httpx.get(served.url + "/").status_code == 200
    assert re.fullmatch(rf"\S+ GET /main.py 404 {DURATION}: no such file in {re.escape(str(site))}", missing), missing
    assert re.fullmatch(rf"\S+ GET /pyodide/nothing.whl 404 {DURATION}: no such file in \S+/pyodide", runtime_file)
    assert re.fullmatch(rf"\S+ POST /agnet 405 {DURATION}: only POST /agent takes a POST here", elsewhere), elsewhere
    assert injected.split(" 404 ")[0].endswith("GET /a?fake line"), "the client's text stays on its line"
    assert unsupported.endswith("Expected `Content-Type: application/json`, got no content type."), unsupported
    assert re.fullmatch(rf"\S+ POST /agent 422 {DURATION}: Malformed AG-UI RunAgentInput body\.; runId: Field required; "
                        r"messages: Field required", invalid), invalid
    assert not served.lines(r"GET / "), "what is served is not logged"
    assert not served.lines("favicon"), "nor the browser's own requests"


def test_verbose_logs_each_event_in_one_line(site, runtime):
    with serving(str(site), "-v", environ=env(runtime)) as served:
        round_trip(served.url + "/agent")
        served.wait_for("results sent")
        httpx.get(served.url + "/favicon.ico")
        served.wait_for("GET /favicon.ico 404")
        lines = served.lines(r"POST /agent event ")
    types = [line.split(" event ")[1].split(":")[0] for line in lines]
    assert types[:2] == ["RUN_STARTED", "TEXT_MESSAGE_START"] and types.count("RUN_FINISHED") == 2, types
    assert any(line.endswith('POST /agent event TOOL_CALL_START: "set_heading"') for line in lines), lines
    assert any(re.search(r'event TEXT_MESSAGE_CONTENT: "returned: "$', line) for line in lines), lines
    assert "; -v: with its events." in served.stdout


def test_a_port_in_use_is_one_line_with_status_2_and_nothing_before_it(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = pyclient("serve", str(tmp_path), "--port", str(port), environ=env(tmp_path / "never-built"))
    assert proc.returncode == 2 and proc.stdout == ""
    assert re.fullmatch(rf"pyclient serve: error: port {port} is in use: pass --port, e.g. --port \d+\.\n",
                        proc.stderr), proc.stderr
    assert not (tmp_path / "never-built").exists(), "checked before the runtime is built"


def test_a_folder_without_index_html_shows_a_page_naming_pyclient_new(tmp_path, runtime):
    site = tmp_path / "my site"
    site.mkdir()
    (site / "other.html").write_text("<!doctype html><title>other</title>")
    with serving(str(site), environ=env(runtime)) as served:
        page = httpx.get(served.url + "/")
        line = served.wait_for("GET / 404")
        (site / "index.html").write_text("<!doctype html><title>mine</title>")
        written = httpx.get(served.url + "/")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "No index.html in" in page.text and f"pyclient new &#x27;{site}&#x27;" in page.text
    assert '<a href="other.html">other.html</a>' in page.text
    assert line.endswith(f"{site} has no index.html: `pyclient new '{site}'` writes a starter page"), line
    assert written.status_code == 200 and written.text == "<!doctype html><title>mine</title>"


BLANK_PAGES = {
    "bare.html": '<script type="py">print(1)</script>',
    "cdn.html": '<script type="py" config="https://cdn.example.org/pyscript.json">print(1)</script>',
    "sub/legacy.html": "<py-script>print(1)</py-script>",
    "own.html": '<script type="mpy" config="own.json">print(1)</script>',
}
LOCAL_PAGES = {
    "index.html": '<script type="py" config="pyscript.json">print(1)</script>',
    "absolute.html": '<script type="py" src="main.py" config="/pyscript.json"></script>',
    "inline.html": '<script type="py" config=\'{"interpreter": "./pyodide/pyodide.mjs"}\'></script>',
    "element.html": '<py-config>interpreter = "./pyodide/pyodide.mjs"</py-config><py-script>print(1)</py-script>',
    "plain.html": "<!doctype html><p>no Python here",
}


def test_a_page_that_would_be_blank_offline_is_warned_once(tmp_path, runtime):
    site = tmp_path / "site"
    for name, text in {**BLANK_PAGES, **LOCAL_PAGES}.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(f'<!doctype html><script type="module" src="/pyscript/core.js"></script>{text}')
    (site / "own.json").write_text('{"packages": ["pyclient-agui"]}')
    with serving(str(site), environ=env(runtime)) as served:
        for name in [*LOCAL_PAGES, *BLANK_PAGES, "bare.html", "cdn.html"]:
            assert httpx.get(f"{served.url}/{name}").status_code == 200, name
        assert httpx.get(served.url + "/").status_code == 200
        served.wait_for("own.html would")
        warnings = [line.split(" ", 1)[1] for line in served.lines("would be a blank page offline")]  # no time
    assert [line.split(" would ")[0] for line in warnings] == ["bare.html", "cdn.html", "sub/legacy.html", "own.html"]
    bare, cdn, legacy, own = warnings
    assert bare == ('bare.html would be a blank page offline: its <script type="py"> has no config=, so PyScript '
                    'loads its interpreter from a CDN. Fix: config="pyscript.json" (pyclient serve answers it, '
                    'pyclient vendor writes it). See "Blank page" in pyclient\'s troubleshooting guide '
                    '(docs/troubleshooting.md).')
    assert "its config= is https://cdn.example.org/pyscript.json, which is not on this server" in cdn
    assert "its <py-script> has no config=" in legacy
    assert "its config own.json names no interpreter" in own


def test_a_pages_start_up_error_is_one_line_and_bad_reports_are_refused(tmp_path, runtime):
    # The page's side (renderer.js posting the line the page shows) is tests/e2e/test_startup_errors.py.
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text('<!doctype html><script type="py" config="pyscript.json">print(1)</script>')
    (site / "style.css").write_text("body {}")
    with serving(str(site), environ=env(runtime)) as served:
        # Its pages carry the mark renderer.js looks for; its other files do not.
        assert httpx.get(served.url + "/").headers["server-timing"] == "pyclient-serve"
        assert "server-timing" not in httpx.get(served.url + "/style.css").headers
        report = {"page": "/index.html", "error": "ValueError: no colour\nFAKE 200 line\n" + "x" * 900}
        assert httpx.post(served.url + "/pyclient/startup-error", json=report).status_code == 204
        assert httpx.post(served.url + "/pyclient/startup-error", content=b"[" * 3000).status_code == 400
        assert httpx.post(served.url + "/pyclient/startup-error", json={"page": "/"}).status_code == 400
        assert httpx.post(served.url + "/pyclient/startup-error", content=b" " * 5000).status_code == 413
        line = served.wait_for("did not start")
    said = line.split(" ", 1)[1]  # no time
    assert said.startswith("/index.html did not start: ValueError: no colour FAKE 200 line xxx"), said
    assert said.endswith("x…") and len(said) < 600, said  # cut, on one line
