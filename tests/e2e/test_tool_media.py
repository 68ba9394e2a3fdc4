"""Files in tool results, in Chromium: what a client tool returns reaches a real pydantic-ai model
as files, and the chat's card shows them; `canvas_tool` and `file_request_tool`; a server's
result with files; a card's image kept across a reload.

The page is web/tests/tool_media.html (web/tests/tool_media.py), on the dev server's
`/agent/media`: a pydantic-ai `AGUIAdapter` agent whose scripted model calls the client tool
a message names ("call snapshot_chart") and records what each model call received
(`media_log`: files as `(media type, bytes)`), then answers "Tool returned: image/png 123 bytes".
It boots once for the module, its thread kept in IndexedDB, and is reloaded by the last test
of that page. The server-result test opens the same page on the plugin's site, answered by
its `scripted_agent`. Every test fails, like every Chromium test, on a request leaving
127.0.0.1 or an uncaught error in the page.
"""

from __future__ import annotations

import base64
import json
import uuid

import pytest
from playwright.sync_api import expect

from pyclient import Document, Image
from pyclient.browser.toolkit._file_request_rules import DECLINED
from tests.e2e.pages import READY, ChatPage, module_page, said, turn
from tests.helpers import PDF_BYTES, png_bytes, png_pixels

TIMEOUT = 20_000


media_page = module_page(f"/tests/tool_media.html?store=1&thread=media-{uuid.uuid4().hex[:8]}")
"""The page on the media agent, loaded once (its thread kept in IndexedDB), and its guard."""


@pytest.fixture
def media(media_page, media_log):
    media_log.clear()
    with turn(media_page):
        yield media_page.page


def answers(page) -> int:
    """How many tool results the model has answered in the chat so far."""
    return page.locator(".pyclient-assistant", has_text="Tool returned").count()


def replied(page, before: int) -> None:
    """Wait until the model has answered one more tool result than `before`, and the run is over."""
    expect(page.locator(".pyclient-assistant", has_text="Tool returned")).to_have_count(before + 1, timeout=TIMEOUT)
    expect(page.locator(".pyclient-chat")).to_have_attribute("data-status", "idle", timeout=TIMEOUT)


def card(page, tool: str, nth: int = -1):
    return page.locator(f".pyclient-tool[data-tool='{tool}']").nth(nth)


def decoded(image) -> dict:
    """An `<img>` once it has loaded: its `src`, its decoded size, and whether the `blob:` URL
    still serves (pyclient revokes it once the image has loaded)."""
    image.wait_for(state="attached", timeout=TIMEOUT)
    image.scroll_into_view_if_needed()  # an image out of sight is loaded lazily
    return image.evaluate("""async img => {
        await img.decode();
        const alive = await fetch(img.src).then(() => true, () => false);
        return {src: img.src, width: img.naturalWidth, height: img.naturalHeight, alive};
    }""")


def run(page, name: str) -> dict:
    return json.loads(page.evaluate("name => window.t.run(name)", name))


def test_a_png_a_handler_returns_reaches_the_model_and_shows_in_its_card(media, media_log):
    before = answers(media)
    ChatPage(media).send("call snapshot_chart")
    replied(media, before)
    png = base64.b64decode(media.evaluate("window.lastPng"))
    assert media_log.received[-1].tool_returns == {"snapshot_chart": [("image/png", png)]}
    expect(media.locator(".pyclient-assistant").last).to_have_text(f"Tool returned: image/png {len(png)} bytes")
    shown = card(media, "snapshot_chart")
    expect(shown).to_have_attribute("data-status", "completed")
    image = decoded(shown.locator(".pyclient-tool-media img"))
    assert image["src"].startswith("blob:") and (image["width"], image["height"]) == (12, 8)
    assert image["alive"] is False  # revoked once loaded: nothing leaks
    thumbnail = shown.locator(".pyclient-tool-media img")
    assert thumbnail.get_attribute("alt") == "chart.png"
    # Its box was set from the PNG's header before it loaded (a tiny image scaled up to be seen).
    assert (thumbnail.get_attribute("width"), thumbnail.get_attribute("height")) == ("48", "32")
    assert thumbnail.evaluate("img => [img.offsetWidth, img.offsetHeight]") == [48, 32]
    expect(shown.locator(".pyclient-tool-result-box")).to_be_hidden()  # only an image: no empty text box


def test_a_js_blob_a_handler_returns_reaches_the_model_as_a_file_shown_as_a_chip(media, media_log):
    before = answers(media)
    ChatPage(media).send("call export_csv")
    replied(media, before)
    assert media_log.received[-1].tool_returns == {"export_csv": [("text/csv", b"a,b\n1,2\n")]}
    chip = card(media, "export_csv").locator(".pyclient-tool-media .pyclient-media-file")
    expect(chip).to_have_attribute("data-kind", "document")
    expect(chip).to_have_text("document (text/csv)8 B")


def test_canvas_tool_shows_the_model_the_canvas_as_drawn(media, media_log):
    before = answers(media)
    ChatPage(media).send("call capture_canvas")
    replied(media, before)
    [text, (mime, data)] = media_log.received[-1].tool_returns["capture_canvas"]
    assert text == "The canvas '#sketch' as drawn now: 160×100 pixels." and mime == "image/png"
    # The very bytes the canvas encodes now, and what they show: red left, blue right, a white dot.
    url = media.evaluate("document.querySelector('#sketch').toDataURL('image/png')")
    assert data == base64.b64decode(url.split(",", 1)[1])
    width, height, rows = png_pixels(data)
    assert (width, height) == (160, 100)
    assert rows[10][10][:3] == (255, 0, 0) and rows[10][150][:3] == (0, 0, 255) and rows[50][80][:3] == (255, 255, 255)
    image = decoded(card(media, "capture_canvas").locator(".pyclient-tool-media img"))
    assert image["src"].startswith("blob:") and (image["width"], image["height"]) == (160, 100)
    expect(card(media, "capture_canvas").locator(".pyclient-tool-result")).to_have_text(text)

    # A canvas tainted by a cross-origin image, and one the page removed: errors that say so.
    media.route("http://127.0.0.1:9/taint.png", lambda route: route.fulfill(body=png_bytes(4, 4),
                                                                           content_type="image/png"))
    assert media.evaluate("""() => new Promise(done => {
        const image = new Image();
        image.onload = () => { document.querySelector('#tainted').getContext('2d').drawImage(image, 0, 0); done(true); };
        image.onerror = () => done(false);
        image.src = 'http://127.0.0.1:9/taint.png';
    })""") is True
    tainted = run(media, "capture_tainted")
    assert tainted["error"].startswith("The browser does not let the page read the canvas '#tainted': it shows an "
                                       "image from another site, which taints it (SecurityError: ")
    assert tainted["media"] == []
    # The same canvas returned by a handler: pyclient reads it, and fails the call saying why.
    returned = run(media, "tainted_canvas")
    assert returned["error"].startswith("Tool 'tainted_canvas' returned a canvas the browser does not let the page "
                                        "read (SecurityError: ")
    assert [(mime, name) for mime, _, name in run(media, "capture_gone")["media"]] == [("image/png", "gone.png")]
    media.evaluate("window.t.remove_gone()")
    assert run(media, "capture_gone")["error"].startswith("The canvas <canvas#gone> is not on the page right now.")


def test_file_request_tool_sends_the_users_file_only_on_their_own_pick(media, media_log, tmp_path):
    before = answers(media)
    ChatPage(media).send('call request_file {"prompt": "Send me your logo"}')
    asking = card(media, "request_file")
    expect(asking).to_have_attribute("data-status", "awaiting_input", timeout=TIMEOUT)
    expect(asking.locator(".pyclient-file-request-prompt")).to_have_text("Send me your logo")
    expect(asking.locator(".pyclient-file-request-hint")).to_have_text("Images or .pdf files, up to 200 kB.")
    picker = asking.locator("input[type=file]")
    expect(picker).to_be_hidden()
    assert picker.get_attribute("accept") == "image/*,.pdf"

    # A script's clicks and a script's file are not the user's: nothing is answered.
    with said(media, "pyclient: ignored a synthetic click on request_file's file request"), \
            said(media, "pyclient: ignored a synthetic file pick on request_file's file request"):
        media.evaluate("document.querySelector('.pyclient-file-request-decline').click()")
        picker.set_input_files({"name": "forged.png", "mimeType": "image/png", "buffer": png_bytes(2, 2)})
    expect(asking).to_have_attribute("data-status", "awaiting_input")
    expect(asking.locator(".pyclient-file-request-status")).to_be_hidden()

    # A file the request does not take is refused in the card; the call keeps waiting.
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    with media.expect_file_chooser() as chooser:
        asking.get_by_role("button", name="Choose a file…").click()
    assert not chooser.value.is_multiple()
    chooser.value.set_files(notes)
    expect(asking.locator(".pyclient-file-request-status")).to_have_text(
        "notes.txt is not a file this request takes (image/*, .pdf). Choose another file.")
    expect(asking).to_have_attribute("data-status", "awaiting_input")

    logo = tmp_path / "logo.png"
    logo.write_bytes(png_bytes(6, 5, (10, 200, 10)))
    with media.expect_file_chooser() as chooser:
        asking.get_by_role("button", name="Choose a file…").click()
    chooser.value.set_files(logo)
    replied(media, before)
    assert media_log.received[-1].tool_returns == {"request_file": [
        f"The user chose the file logo.png (image/png, {len(logo.read_bytes())} B).", ("image/png", logo.read_bytes())]}
    expect(asking).to_have_attribute("data-status", "completed")
    image = decoded(asking.locator(".pyclient-tool-media img"))
    assert image["src"].startswith("blob:") and (image["width"], image["height"]) == (6, 5)

    # Decline: the model reads why.
    ChatPage(media).send('call request_file {"prompt": "And your CV?"}')
    declining = card(media, "request_file")
    expect(declining).to_have_attribute("data-status", "awaiting_input", timeout=TIMEOUT)
    declining.get_by_role("button", name="Decline").click()
    replied(media, before + 1)
    assert media_log.received[-1].tool_returns == {"request_file": [DECLINED]}
    expect(declining).to_have_attribute("data-status", "failed")
    expect(declining.locator(".pyclient-tool-result")).to_have_text(DECLINED)


def test_the_cards_images_are_kept_across_a_reload(media_page):
    guard, page = media_page, media_page.page
    before = answers(page)
    ChatPage(page).send("call snapshot_chart")  # at least one image, whichever tests ran before
    replied(page, before)
    shown = [(card.get_attribute("data-tool-call-id"), decoded(card.locator(".pyclient-tool-media img")))
             for card in page.locator(".pyclient-tool:has(.pyclient-tool-media img)").all()]
    chips = page.locator(".pyclient-tool-media .pyclient-media-file").all_text_contents()
    page.evaluate("window.t.saved()")
    guard.reload(ready=READY)
    for call_id, image in shown:
        again = decoded(page.locator(f".pyclient-tool[data-tool-call-id='{call_id}'] .pyclient-tool-media img"))
        assert again["src"].startswith("blob:") and again["src"] != image["src"], call_id  # made afresh
        assert (again["width"], again["height"]) == (image["width"], image["height"]), call_id
    assert page.locator(".pyclient-tool-media .pyclient-media-file").all_text_contents() == chips
    guard.check()


# -- a server's result with files ---------------------------------------------------------------

def test_a_server_result_with_files_shows_them_and_never_loads_a_remote_one(pyclient_page, scripted_agent):
    png = png_bytes(9, 7, (200, 120, 0))
    scripted_agent.on("plot").server_call("plot_chart", {"region": "north"}, result=[
        "the chart for north", Image(png, filename="north.png"), Image(url="http://127.0.0.1:9/remote.png"),
        Document(PDF_BYTES, filename="north.pdf")]).say("Here it is.")
    page = pyclient_page.page
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    pyclient_page.open("/tests/tool_media.html?agent=/agent", ready=READY)
    ChatPage(page).send("plot")
    shown = card(page, "plot_chart")
    expect(shown).to_have_attribute("data-status", "completed", timeout=TIMEOUT)
    expect(page.locator(".pyclient-assistant").last).to_have_text("Here it is.")
    expect(shown.locator(".pyclient-tool-result")).to_have_text("the chart for north")
    image = decoded(shown.locator(".pyclient-tool-media img"))
    assert image["src"].startswith("blob:") and (image["width"], image["height"]) == (9, 7)
    chips = shown.locator(".pyclient-tool-media .pyclient-media-file")
    expect(chips).to_have_count(2)
    expect(chips.nth(0)).to_have_text("http://127.0.0.1:9/remote.pnglink, not loaded")
    expect(chips.nth(1)).to_have_text("north.pdf" + f"{len(PDF_BYTES)} B")
    assert shown.locator("img").count() == 1
    assert not [url for url in requested if "remote.png" in url]
