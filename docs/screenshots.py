"""Screenshots of the demo page in its main states, for the README: `docs/images/*.png`.

It serves the demo (the dev server with its embedded agent, as `./dev demo` does), drives it in
headless Chromium through the chat's own suggestion buttons and input, and captures:

| file | state |
| --- | --- |
| `welcome.png` | the empty chat with its suggestions |
| `streaming.png` | a renderer filling in a task while the model writes its arguments |
| `tool-card.png` | a finished tool call and the answer |
| `approval.png` | a tool that asks for approval |
| `input.png` | a render-only tool: the user picks a colour in the card |
| `tool-image.png`, `tool-image-dark.png` | a tool whose result is an image: the toolkit's `canvas_tool` showing the sketch |
| `error.png` | a failed run, in words, with Retry |
| `dark.png` | a conversation in dark mode |
| `attachments.png`, `attachments-dark.png` | a message sent with files, and more files waiting in the composer (one refused) |
| `message-actions.png`, `message-actions-dark.png` | an edited message and a regenerated answer, each ‹ 2/2 ›, and the answer's action bar (copy, regenerate, thumbs) |
| `reasoning.png`, `reasoning-dark.png` | an answer with its reasoning in the "Thinking" section, opened again |
| `subagents.png`, `subagents-dark.png` | two subagents' work in groups: a researcher that finished, a writer that failed |
| `thread-list.png`, `thread-list-dark.png` | saved threads beside the chat (`ThreadList`): one renamed, one asking to be deleted |
| `activity-state.png`, `activity-state-dark.png` | an activity's default card and a state renderer's plan (web/tests/state.html, a scripted agent) |
| `shell.png` | the demo before Python is ready: the chat's shell, a message waiting to go and the next one typed |
| `python-tool.png`, `python-tool-dark.png` | `python_tool` summing a CSV the person attached and drawing a chart (web/tests/python_tool.html, a scripted agent) |
| `startup-error-main.png`, `startup-error-worker.png` | a page whose Python fails to start, its error in the chat's shell, on the main thread and in a worker (web/tests/startup_errors.html?shell=1) |

    ./dev screenshots          # or: .venv/bin/python docs/screenshots.py [--out DIR]

Every request outside 127.0.0.1 is aborted; the agent's failure in `error.png` is one
request answered 503 by Playwright's router. The reasoning and subagent shots are of the test
page `web/tests/stream.html`, its agent's requests answered by Playwright's router with the events
of a `pyclient.testing.ScriptedAgent` (the embedded agent neither reasons nor delegates).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from devserver.app import create_app  # noqa: E402
from devserver.assets import build  # noqa: E402
from devserver.background import ServerThread  # noqa: E402
from devserver.chromium import launch_args  # noqa: E402

VIEWPORT = {"width": 1200, "height": 760}
TIMEOUT_MS = 60_000


def open_demo(browser, url: str, *, dark: bool = False, path: str = "/"):
    context = browser.new_context(viewport=VIEWPORT, color_scheme="dark" if dark else "light",
                                  device_scale_factor=1)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url)
                  else route.abort())
    page = context.new_page()
    page.goto(url + path)
    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'", timeout=TIMEOUT_MS)
    return context, page


def send(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Message")
    box.fill(text)
    box.press("Enter")


def wait_idle(page) -> None:
    page.wait_for_selector(".pyclient-chat[data-status='idle']", timeout=TIMEOUT_MS)


def card(page, tool: str, attribute: str, value: str):
    return page.wait_for_selector(f".pyclient-tool[data-tool='{tool}'][{attribute}='{value}']", timeout=TIMEOUT_MS)


# Drawn in the page: a bar chart and a photo-like gradient, as PNGs (base64).
DRAW = """([kind, width, height]) => {
    const canvas = document.createElement('canvas');
    canvas.width = width; canvas.height = height;
    const g = canvas.getContext('2d');
    if (kind === 'chart') {
        g.fillStyle = '#ffffff'; g.fillRect(0, 0, width, height);
        g.strokeStyle = '#d6d9de'; g.lineWidth = 2;
        for (let y = 40; y < height; y += 50) { g.beginPath(); g.moveTo(30, y); g.lineTo(width - 20, y); g.stroke(); }
        [0.45, 0.7, 0.55, 0.9, 0.8].forEach((v, i) => {
            g.fillStyle = i === 3 ? '#2f5bea' : '#93a8f0';
            g.fillRect(50 + i * 70, height - 20 - v * (height - 60), 44, v * (height - 60));
        });
    } else {
        const sky = g.createLinearGradient(0, 0, 0, height);
        sky.addColorStop(0, '#f6a25e'); sky.addColorStop(0.55, '#f7d08a'); sky.addColorStop(0.56, '#2c6e8f');
        sky.addColorStop(1, '#123b52');
        g.fillStyle = sky; g.fillRect(0, 0, width, height);
        g.fillStyle = '#fff3c4'; g.beginPath(); g.arc(width * 0.62, height * 0.5, height * 0.12, 0, Math.PI * 2); g.fill();
    }
    return canvas.toDataURL('image/png').split(',')[1];
}"""
PDF = (b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
       b"trailer<</Root 1 0 R>>\n%%EOF\n") + b"%" * 48_000


def attach(page, files) -> None:
    page.locator(".pyclient-file-picker").set_input_files(
        [{"name": name, "mimeType": mime, "buffer": data} for name, mime, data in files])


def drawn(page, kind: str, width: int, height: int) -> bytes:
    import base64

    return base64.b64decode(page.evaluate(DRAW, [kind, width, height]))


def capture_attachments(browser, url: str, out: Path, *, dark: bool) -> Path:
    """A message sent with a chart and a PDF, answered; then a photo and notes waiting in the
    composer, and a video the demo's chat does not take, refused in words."""
    context, page = open_demo(browser, url, dark=dark)
    attach(page, [("sales-q3.png", "image/png", drawn(page, "chart", 420, 260)),
                  ("q3-report.pdf", "application/pdf", PDF)])
    send(page, "What do these show?")
    wait_idle(page)
    attach(page, [("harbour.png", "image/png", drawn(page, "photo", 360, 240)),
                  ("notes.txt", "text/plain", b"Ask about the October numbers.\n" * 20),
                  ("clip.mp4", "video/mp4", bytes(2_000))])
    page.get_by_role("textbox", name="Message").fill("And these?")
    page.wait_for_function("[...document.querySelectorAll('.pyclient-chat img')].every(i => i.complete)")
    page.wait_for_timeout(300)
    path = out / ("attachments-dark.png" if dark else "attachments.png")
    page.screenshot(path=str(path))
    context.close()
    return path


def capture_message_actions(browser, url: str, out: Path, *, dark: bool) -> Path:
    """A message edited and sent again, its answer regenerated: both show their branches
    (‹ 2/2 ›); the answer rated, with its action bar shown (the pointer on it)."""
    context, page = open_demo(browser, url, dark=dark)
    send(page, "Make the background #1e3a8a")
    wait_idle(page)
    user = page.locator(".pyclient-user").last
    user.hover()
    user.get_by_role("button", name="Edit message").click()
    page.get_by_label("Edit your message").fill("Make it teal and set the heading to Welcome")
    page.locator(".pyclient-edit-send").click()
    page.wait_for_selector(".pyclient-user .pyclient-branch-count[data-count='2/2']", timeout=TIMEOUT_MS)
    wait_idle(page)
    answer = page.locator(".pyclient-assistant").last
    answer.hover()
    answer.get_by_role("button", name="Regenerate answer").click()
    page.wait_for_selector(".pyclient-assistant .pyclient-branch-count[data-count='2/2']", timeout=TIMEOUT_MS)
    wait_idle(page)
    answer = page.locator(".pyclient-assistant").last
    answer.hover()
    answer.get_by_role("button", name="Good answer").click()
    page.wait_for_selector(".pyclient-rate-up[aria-pressed='true']", timeout=TIMEOUT_MS)
    answer.locator(".pyclient-copy").hover()
    page.wait_for_timeout(400)
    path = out / ("message-actions-dark.png" if dark else "message-actions.png")
    page.screenshot(path=str(path))
    context.close()
    return path


def scripted_stream(page, agent) -> None:
    """Answer the page's `/agent` requests with `agent` (a `ScriptedAgent`), its events as SSE."""
    import json

    from pyclient.testing._response import sse

    def answer(route):
        response = agent.respond(json.loads(route.request.post_data or "{}"))
        route.fulfill(status=200, headers={"Content-Type": "text/event-stream"},
                      body=b"".join(sse(event) for event in response.events))

    page.route("**/agent", answer)


def capture_stream(browser, url: str, out: Path, *, dark: bool) -> list[Path]:
    """`reasoning.png` and `subagents.png` (or their `-dark` twins), on the stream test page."""
    from pyclient.testing import ScriptedAgent

    agent = ScriptedAgent()
    agent.on("offsite").reason(
        "The team is twelve people, mostly in Lyon. A venue near Part-Dieu keeps travel short; "
        "early October avoids the trade fair. Budget per head matters more than the view.").say(
        "I suggest **Thursday 9 October** at *La Halle* near Part-Dieu: 12 seats, a terrace, "
        "and €48 a head with lunch.")
    (agent.on("invite").say("I'll ask my helpers.")
     .subagent("researcher", description="finds venues and prices").reason("Compare three venues by price per head")
     .server_call("search_venues", city="Lyon", guests=12, result={"venues": 3, "cheapest": "La Halle, €48"})
     .say("Found 3 venues; La Halle is the cheapest at €48 a head.").end_subagent()
     .subagent("writer", description="drafts the invitation").say("Drafting the invitation…")
     .end_subagent(error="the template service timed out")
     .say("The venue is settled; the invitation needs another try."))
    theme = "dark" if dark else "light"
    context = browser.new_context(viewport=VIEWPORT, color_scheme=theme, device_scale_factor=1)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url)
                  else route.abort())
    page = context.new_page()
    page.goto(url + "/tests/stream.html")
    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'", timeout=TIMEOUT_MS)
    scripted_stream(page, agent)
    shots = []
    for said, name in (("Plan our team offsite in Lyon", "reasoning"), ("Book it and send the invite", "subagents")):
        page.evaluate("theme => window.t.open('/agent', true, theme)", theme)
        send(page, said)
        page.wait_for_selector(".pyclient-chat[data-status='idle'] .pyclient-assistant", timeout=TIMEOUT_MS)
        if name == "reasoning":
            page.click(".pyclient-thinking-summary")   # folded once the answer started: opened again
        page.wait_for_timeout(300)
        path = out / (f"{name}-dark.png" if dark else f"{name}.png")
        page.screenshot(path=str(path))
        shots.append(path)
    context.close()
    return shots


def capture(browser, url: str, out: Path) -> list[Path]:
    shots: list[Path] = []

    def shot(page, name: str) -> None:
        page.wait_for_timeout(300)  # let the last frame paint
        path = out / f"{name}.png"
        page.screenshot(path=str(path))
        shots.append(path)

    context, page = open_demo(browser, url)
    shot(page, "welcome")
    send(page, "Create a task to water the plants slowly")
    card(page, "create_task", "data-state", "input-streaming")
    page.wait_for_timeout(900)
    shot(page, "streaming")
    wait_idle(page)
    send(page, "Make the background #1e3a8a")
    wait_idle(page)
    shot(page, "tool-card")
    context.close()

    context, page = open_demo(browser, url)
    page.get_by_role("button", name="Clear the notes").click()
    card(page, "clear_notes", "data-status", "awaiting_approval")
    shot(page, "approval")
    context.close()

    context, page = open_demo(browser, url)
    page.get_by_role("button", name="Let me pick a colour").click()
    card(page, "pick_colour", "data-status", "awaiting_input")
    shot(page, "input")
    context.close()

    for dark in (False, True):
        context, page = open_demo(browser, url, dark=dark)
        page.get_by_role("button", name="What is on the canvas?").click()
        card(page, "capture_canvas", "data-status", "completed")
        page.wait_for_function("document.querySelector('.pyclient-tool-media img')?.complete", timeout=TIMEOUT_MS)
        wait_idle(page)
        shot(page, "tool-image-dark" if dark else "tool-image")
        context.close()

    context, page = open_demo(browser, url)
    failed = {"done": False}

    def fail_once(route):
        if failed["done"]:
            route.continue_()
        else:
            failed["done"] = True
            route.fulfill(status=503, body="the agent is down")

    page.route("**/agent", fail_once)
    send(page, "Hello")
    page.wait_for_selector(".pyclient-chat[data-status='error']", timeout=TIMEOUT_MS)
    shot(page, "error")
    context.close()

    context, page = open_demo(browser, url, dark=True)
    page.get_by_role("button", name="Make it teal and set the heading to Welcome").click()
    wait_idle(page)
    shot(page, "dark")
    context.close()

    shots.append(capture_attachments(browser, url, out, dark=False))
    shots.append(capture_attachments(browser, url, out, dark=True))
    shots.append(capture_message_actions(browser, url, out, dark=False))
    shots.append(capture_message_actions(browser, url, out, dark=True))
    for dark in (False, True):
        shots += capture_stream(browser, url, out, dark=dark)
    shots.extend(capture_thread_list(browser, url, out, dark=dark) for dark in (False, True))
    return shots


def capture_thread_list(browser, url: str, out: Path, *, dark: bool) -> Path:
    """web/tests/threads.html: three saved threads beside the chat, one renamed, older ones aged,
    the one shown second in the list, and the last one asking to be deleted."""
    context = browser.new_context(viewport={"width": 1100, "height": 620}, color_scheme="dark" if dark else "light",
                                  device_scale_factor=1)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url) else route.abort())
    page = context.new_page()
    page.goto(url + "/tests/threads.html")
    page.wait_for_function("document.documentElement.dataset.pyclient === 'ready'", timeout=TIMEOUT_MS)
    page.evaluate("window.t.reset()")
    for text in ("Plan a weekend in Lisbon", "Make the background #1e3a8a", "Summarise the meeting notes"):
        page.locator(".pyclient-thread-new").click()
        page.wait_for_function("!document.querySelector('.pyclient-message')", timeout=TIMEOUT_MS)  # the new chat
        send(page, text)
        wait_idle(page)
        page.locator(".pyclient-thread-title", has_text=text[:12]).wait_for(timeout=TIMEOUT_MS)
    page.evaluate("window.t.age('Plan a weekend in Lisbon', 26 * 3600)")
    page.evaluate("window.t.age('Make the background #1e3a8a', 3 * 3600)")
    lisbon = page.locator(".pyclient-thread", has_text="Lisbon")
    lisbon.locator(".pyclient-thread-rename").click()
    lisbon.locator(".pyclient-thread-input").fill("Lisbon trip")
    page.keyboard.press("Enter")
    page.locator(".pyclient-thread-title", has_text="Lisbon trip").wait_for(timeout=TIMEOUT_MS)
    page.locator(".pyclient-thread", has_text="background").locator(".pyclient-thread-open").click()
    page.locator(".pyclient-user", has_text="background").wait_for(timeout=TIMEOUT_MS)
    wait_idle(page)
    page.locator(".pyclient-thread", has_text="Lisbon").locator(".pyclient-thread-delete").click()
    page.mouse.move(0, 0)
    page.wait_for_timeout(300)
    path = out / ("thread-list-dark.png" if dark else "thread-list.png")
    page.screenshot(path=str(path))
    context.close()
    return path


def capture_activity_state(browser, out: Path) -> list[Path]:
    """An activity card (the default one: its type and a summary of its content) and the shared
    state drawn by a state renderer (a plan, two steps of four done), from `pyclient.testing`'s
    scripted agent on the test page web/tests/state.html, light and dark."""
    from pyclient.server import build as build_runtime
    from pyclient.testing import ScriptedAgent
    from pyclient.testing._server import ServerThread as SiteThread
    from pyclient.testing._site import Site

    steps = [{"description": text, "status": "completed" if i < 2 else "pending"}
             for i, text in enumerate(["Search flights to Lisbon", "Compare three hotels", "Book the hotel",
                                       "Send the itinerary"])]
    agent = ScriptedAgent()
    (agent.on("trip").activity("search", {"query": "flights to Lisbon, 12-15 May", "sources": ["tap.pt", "kayak.com"],
                                          "found": 14, "status": "done"})
     .state({"steps": steps}).say("I found 14 flights and compared three hotels. Two steps of the plan are done."))
    site = Site(ROOT / "web", build_runtime())
    site.agent = agent
    shots = []
    with SiteThread(site) as server:
        for dark in (False, True):
            context, page = open_demo(browser, server.url, dark=dark, path="/tests/state.html?agent=/agent")
            send(page, "Plan my trip to Lisbon")
            page.wait_for_selector(".pyclient-state ol.plan", timeout=TIMEOUT_MS)
            wait_idle(page)
            page.wait_for_timeout(300)
            path = out / ("activity-state-dark.png" if dark else "activity-state.png")
            page.screenshot(path=str(path))
            shots.append(path)
            context.close()
    return shots


def capture_shell(browser, url: str, out: Path) -> list[Path]:
    """The chat at first paint, and a start-up error in it in each mode."""
    paths = []
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
    context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(url)
                  else route.abort())
    page = context.new_page()
    page.goto(url + "/", wait_until="commit")
    field = page.locator("#chat input[name=message]")
    field.wait_for()
    field.fill("make it blue")
    field.press("Enter")
    field.fill("and set the heading to Hello")
    paths.append(out / "shell.png")
    page.screenshot(path=str(paths[-1]))
    for mode, query in (("main", ""), ("worker", "&pyclient-worker=1")):
        page.goto(f"{url}/tests/startup_errors.html?case=hint-first&shell=1{query}", wait_until="commit")
        page.locator(".pyclient-chat[data-shell=failed] .py-error").wait_for(timeout=120_000)
        paths.append(out / f"startup-error-{mode}.png")
        page.locator("#chat").screenshot(path=str(paths[-1]))
    context.close()
    return paths


PYTHON_CODE = """import csv, struct, zlib
from collections import Counter

totals = Counter()
for row in csv.DictReader(open('/data/sales.csv')):
    totals[row['region']] += float(row['amount'])
print(totals.most_common())

def png(width, height, pixel):   # a bar chart, with the standard library only
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
    rows = b''.join(b'\\x00' + b''.join(pixel(x, y) for x in range(width)) for y in range(height))
    head = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)
    return b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', head) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')

top = max(totals.values())
bars = list(totals.values())
def pixel(x, y):
    i, inside = divmod(x, 40)
    high = i < len(bars) and 8 <= inside < 32 and 100 - y <= bars[i] / top * 90
    return b'\\x2f\\x5b\\xea' if high else b'\\xff\\xff\\xff'
open('/output/sales.png', 'wb').write(png(40 * len(bars), 100, pixel))
totals.most_common(1)[0]"""


def capture_python(browser, url: str, out: Path, *, dark: bool) -> Path:
    """`python-tool.png` (or its `-dark` twin): `python_tool` summing a CSV the person attached and
    drawing a chart, on web/tests/python_tool.html answered by a `ScriptedAgent`."""
    from pyclient.testing import ScriptedAgent

    agent = ScriptedAgent()
    (agent.on("Which region sold most? Draw it.").say("Let me read the file.").call("run_python", code=PYTHON_CODE)
     .then_say("**North** sold most: 1,200. The chart shows the three regions."))
    context, page = open_demo(browser, url, dark=dark, path="/tests/python_tool.html?agent=/agent")
    scripted_stream(page, agent)
    attach(page, [("sales.csv", "text/csv", b"region,amount\nnorth,700\neast,950\nnorth,500\nsouth,400\n")])
    send(page, "Which region sold most? Draw it.")
    page.wait_for_selector(".pyclient-chat[data-status='idle'] .pyclient-assistant >> nth=1", timeout=TIMEOUT_MS)
    page.locator(".pyclient-tool[data-tool='run_python'] .pyclient-tool-result-box > summary").click()
    page.wait_for_function("[...document.images].every(i => i.complete)")
    page.locator(".pyclient-assistant").last.scroll_into_view_if_needed()
    path = out / ("python-tool-dark.png" if dark else "python-tool.png")
    page.screenshot(path=str(path))
    context.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images", help="where the PNGs go")
    parser.add_argument("--only", default=None, help="capture only this group: message-actions, shell, python")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    build()
    with ServerThread(create_app()) as server, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**launch_args())
        try:
            if args.only == "message-actions":
                paths = [capture_message_actions(browser, server.url, args.out, dark=dark) for dark in (False, True)]
            elif args.only == "shell":
                paths = capture_shell(browser, server.url, args.out)
            elif args.only == "python":
                paths = [capture_python(browser, server.url, args.out, dark=dark) for dark in (False, True)]
            elif args.only is not None:
                parser.error(f"--only {args.only!r}: the groups are 'message-actions', 'shell' and 'python'")
            else:
                paths = [*capture(browser, server.url, args.out), *capture_activity_state(browser, args.out),
                         *capture_shell(browser, server.url, args.out),
                         *(capture_python(browser, server.url, args.out, dark=dark) for dark in (False, True))]
            for path in paths:
                print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
        finally:
            browser.close()


if __name__ == "__main__":
    main()
