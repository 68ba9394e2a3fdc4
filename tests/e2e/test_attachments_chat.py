"""The chat's attachments in Chromium, against a real pydantic-ai agent whose model records the files it gets.

The page is web/tests/attachments.html (a `Chat` on `POST /agent/media`, tests/agents/media_agent.py);
files reach it the three ways a person gives them: the attach button's file input (Playwright's
`set_input_files`), a `paste` into the message input and a `drop` on the chat, both real events
carrying a real `DataTransfer` built in the page. Each page boot costs seconds: the first test
puts the composer's checks on one page, the second the bubbles kept across a reload. Each runs
with the page's Python on the main thread and in a worker (`BOTH_MODES`), where the page
cancels a paste or a drop of files itself and hands the files to the worker.
"""

from __future__ import annotations

import base64
import uuid

from playwright.sync_api import expect

from tests.e2e.pages import BOTH_MODES, ChatPage, wait_ready
from tests.helpers import PDF_BYTES, png_bytes

pytestmark = BOTH_MODES

TIMEOUT = 20_000
PAGE = "/tests/attachments.html"

# Builds a DataTransfer holding the files [(name, type, base64)], then fires `kinds` events carrying it
# at `selector`; returns, per event, whether a listener cancelled it.
FIRE = """([selector, files, kinds, make]) => {
    const transfer = new DataTransfer();
    for (const [name, type, data] of files) {
        const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
        transfer.items.add(new File([bytes], name, {type}));
    }
    const target = document.querySelector(selector);
    return kinds.map(kind => {
        const init = {bubbles: true, cancelable: true, composed: true};
        const event = make === 'clipboard' ? new ClipboardEvent(kind, {...init, clipboardData: transfer})
                                           : new DragEvent(kind, {...init, dataTransfer: transfer});
        target.dispatchEvent(event);
        return event.defaultPrevented;
    });
}"""


def encoded(files: list[tuple[str, str, bytes]]) -> list[list[str]]:
    return [[name, mime, base64.b64encode(data).decode()] for name, mime, data in files]


def paste(page, files) -> list[bool]:
    return page.evaluate(FIRE, [".pyclient-form input[name=message]", encoded(files), ["paste"], "clipboard"])


def drag(page, files, kinds: list[str], selector: str = ".pyclient-messages") -> list[bool]:
    return page.evaluate(FIRE, [selector, encoded(files), kinds, "drag"])


def pick(page, files) -> None:
    page.locator(".pyclient-file-picker").set_input_files(
        [{"name": name, "mimeType": mime, "buffer": data} for name, mime, data in files])


def expect_previews(page, names: list[str]) -> None:
    """Wait until the previews' Remove buttons have these names, in order (in a worker a click's
    effect reaches the page a task later, so a read right after it could see the old tray)."""
    page.wait_for_function(
        """names => JSON.stringify([...document.querySelectorAll('.pyclient-attachment-remove')]
                                   .map(b => b.getAttribute('aria-label'))) === JSON.stringify(names)""",
        arg=names)


def expect_chip(page, name: str) -> None:
    """Wait until the tray shows `name` as a chip (an image the browser could not show). If it
    does not, say what the page's images were: still loading (`complete` false), failed without
    the worker hearing it (complete, width 0, listeners left), or never listened to."""
    chip = page.locator(".pyclient-attachment-list .pyclient-media-file .pyclient-media-name").filter(has_text=name)
    try:
        expect(chip).to_have_count(1)
    except AssertionError as error:
        images = page.evaluate("""() => [...document.querySelectorAll('.pyclient-attachment-list img')].map(i =>
            ({alt: i.alt, complete: i.complete, width: i.naturalWidth, listened: i.__pyclient ? [...i.__pyclient.keys()] : []}))""")
        raise AssertionError(f"no chip for {name}; the tray's images: {images}") from error


def loaded_images(locator) -> list[tuple[str, int]]:
    """Each image's alt and decoded width (0: not loaded or broken)."""
    return locator.locator("img").evaluate_all("imgs => imgs.map(i => [i.alt, i.complete ? i.naturalWidth : 0])")


CHART = png_bytes(8, 6, (30, 90, 200))
SMALL = png_bytes(2, 2, (0, 160, 60))


def test_attach_by_button_paste_and_drop_then_send(page, open_page, media_log):
    media_log.clear()
    big = png_bytes(4, 4, (200, 0, 0)) + bytes(2_500)  # over the page's 2 kB a file may be
    open_page(f"{PAGE}?accept=image/*,application/pdf&file_limit=2000&message_limit=2000")
    chat = page.locator(".pyclient-chat")
    notice = page.locator(".pyclient-attach-notice")
    attach = page.get_by_role("button", name="Attach files")
    expect(attach).to_be_visible()
    picker = page.locator(".pyclient-file-picker")
    expect(picker).to_have_attribute("accept", "image/*,application/pdf")
    expect(picker).to_be_hidden()
    assert picker.evaluate("e => e.type === 'file' && e.multiple && !e.closest('form')")
    expect(notice).to_have_attribute("aria-live", "polite")

    # The button's input: an image is previewed, a text file is refused in words, an image the
    # browser cannot show becomes a chip.
    pick(page, [("chart.png", "image/png", CHART), ("notes.txt", "text/plain", b"remember the milk"),
                ("scan.heic", "image/heic", b"not an image the browser shows")])
    expect(notice).to_have_text("notes.txt was not attached: this chat takes images and PDF files.")
    expect_previews(page, ["Remove chart.png", "Remove scan.heic"])
    tray = page.locator(".pyclient-attachment-list")
    expect_chip(page, "scan.heic")
    expect(tray.locator("img")).to_have_attribute("alt", "chart.png")
    page.wait_for_function("document.querySelector('.pyclient-attachment img').naturalWidth === 8")
    # A click on its Remove takes it away.
    page.get_by_role("button", name="Remove scan.heic").click()
    expect_previews(page, ["Remove chart.png"])

    # A paste into the input: its files are attached (a chip with name and size), and nothing
    # is typed into the input.
    assert paste(page, [("report.pdf", "application/pdf", PDF_BYTES)]) == [True]
    expect_previews(page, ["Remove chart.png", "Remove report.pdf"])
    chip = tray.locator(".pyclient-media-file")
    expect(chip.locator(".pyclient-media-name")).to_have_text("report.pdf")
    expect(chip.locator(".pyclient-media-size")).to_have_text(f"{len(PDF_BYTES)} B")
    expect(notice).to_have_text("")  # what the last attach said is gone
    assert page.locator(".pyclient-form input[name=message]").input_value() == ""
    # A paste of text alone is the input's: not cancelled.
    assert page.evaluate("""() => { const t = new DataTransfer(); t.setData('text/plain', 'hi');
        const e = new ClipboardEvent('paste', {bubbles: true, cancelable: true, clipboardData: t});
        document.querySelector('.pyclient-form input[name=message]').dispatchEvent(e); return e.defaultPrevented; }""") is False

    # Dragging files over the chat shows the drop highlight; dragover is cancelled (or the browser
    # would open the file); a drop attaches what fits and says why the rest did not.
    assert drag(page, [("big.png", "image/png", big)], ["dragenter", "dragover"]) == [False, True]
    expect(chat).to_have_attribute("data-drop", "over")
    assert chat.evaluate("e => getComputedStyle(e).outlineStyle") == "dashed"
    extra = png_bytes(3, 3, (250, 200, 0))
    heavy = png_bytes(4, 4) + bytes(1_800)   # within a file's 2 kB, over the message's 2 kB with the rest
    assert drag(page, [("big.png", "image/png", big), ("extra.png", "image/png", extra),
                       ("heavy.png", "image/png", heavy)], ["drop"]) == [True]
    expect(chat).not_to_have_attribute("data-drop", "over")
    size = f"{len(big) / 1000:.1f} kB"
    expect(notice).to_have_text(
        f"big.png is {size}, over the 2 kB a file may be. It was not attached.\n"
        f"The attachments come to {(len(CHART) + len(PDF_BYTES) + len(extra) + len(heavy)) / 1000:.1f} kB, "
        "over the 2 kB one message may carry. heavy.png was not attached.")
    expect_previews(page, ["Remove chart.png", "Remove report.pdf", "Remove extra.png"])
    # A drag that leaves without dropping takes the highlight away.
    drag(page, [("x.png", "image/png", SMALL)], ["dragenter", "dragleave"])
    expect(chat).not_to_have_attribute("data-drop", "over")

    # Remove by keyboard: from the input, Shift+Tab reaches the attach button, then the last
    # preview's Remove; Enter removes it and focus goes to the previous one.
    page.locator(".pyclient-form input[name=message]").focus()
    page.keyboard.press("Shift+Tab")
    expect(attach).to_be_focused()
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Remove extra.png")).to_be_focused()
    page.keyboard.press("Enter")
    expect_previews(page, ["Remove chart.png", "Remove report.pdf"])
    expect(page.get_by_role("button", name="Remove report.pdf")).to_be_focused()

    # Send: the model gets the text and the same bytes and types; the bubble shows them; the
    # previews are gone.
    ChatPage(page).send("What are these?")
    answer = f"Received: image/png {len(CHART)} bytes, application/pdf {len(PDF_BYTES)} bytes"
    expect(page.locator(".pyclient-assistant").last).to_have_text(answer, timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert media_log.received[-1].user == ["What are these?", ("image/png", CHART), ("application/pdf", PDF_BYTES)]
    parts = media_log.bodies[-1]["messages"][-1]["content"]
    assert [part.get("metadata", {}).get("pyclient", {}).get("filename") for part in parts] == [
        None, "chart.png", "report.pdf"]
    expect_previews(page, [])
    expect(tray).to_be_hidden()
    bubble = page.locator(".pyclient-user").last
    assert bubble.evaluate("e => e.firstChild.data") == "What are these?"
    expect(bubble.locator(".pyclient-media-file .pyclient-media-name")).to_have_text("report.pdf")
    page.wait_for_function("[...document.querySelectorAll('.pyclient-user img')].some(i => i.naturalWidth === 8)")
    assert loaded_images(bubble) == [["chart.png", 8]]

    # thread.send checks again: with a smaller limit set since the file was attached, the send is
    # refused, said in words, and the file and the text stay.
    received = len(media_log.received)
    pick(page, [("small.png", "image/png", SMALL)])
    # Attached first (in a worker the pick reaches Python a task later than this line): only
    # then the smaller limit, else the pick itself is refused.
    expect_previews(page, ["Remove small.png"])
    page.evaluate("window.t.limit(10)")
    ChatPage(page).send("and this one?", taken=False)  # refused: said in the notice
    expect(notice).to_have_text(f"small.png is {len(SMALL)} B, over the 10 B a file may be. "
                                "Nothing was sent: remove a file and send again.", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    expect_previews(page, ["Remove small.png"])
    assert page.locator(".pyclient-form input[name=message]").input_value() == "and this one?"
    assert len(media_log.received) == received
    assert page.locator(".pyclient-user").count() == 1

    # Files alone, no text: sent.
    page.evaluate("window.t.limit(2000)")
    page.locator(".pyclient-form input[name=message]").fill("")
    page.locator(".pyclient-send").click()
    expect(page.locator(".pyclient-assistant").last).to_have_text(f"Received: image/png {len(SMALL)} bytes",
                                                                  timeout=TIMEOUT)
    assert media_log.received[-1].user == [("image/png", SMALL)]
    expect(notice).to_have_text("")
    last = page.locator(".pyclient-user").last
    expect(last).to_have_class("pyclient-message pyclient-user pyclient-files-only")
    assert last.evaluate("e => e.firstChild.data") == ""


def test_sent_files_come_back_after_a_reload(page, open_page, media_log):
    media_log.clear()
    thread = f"files-{uuid.uuid4().hex[:8]}"
    big_pdf = PDF_BYTES + b"%" * 3_000   # over the page's 1 kB a saved thread keeps
    url = f"{PAGE}?store=1&thread={thread}&stored_limit=1000"
    open_page(url)
    pick(page, [("chart.png", "image/png", CHART), ("manual.pdf", "application/pdf", big_pdf)])
    expect_previews(page, ["Remove chart.png", "Remove manual.pdf"])  # attached (a worker reads them a task later)
    ChatPage(page).send("keep these")
    expect(page.locator(".pyclient-assistant")).to_have_text(
        f"Received: image/png {len(CHART)} bytes, application/pdf {len(big_pdf)} bytes", timeout=TIMEOUT)
    ChatPage(page).wait_idle()
    assert media_log.received[-1].user == ["keep these", ("image/png", CHART), ("application/pdf", big_pdf)]

    page.reload()
    wait_ready(page)
    bubble = page.locator(".pyclient-user")
    expect(bubble).to_have_count(1, timeout=TIMEOUT)
    assert bubble.evaluate("e => e.firstChild.data") == "keep these"
    # The image was kept with its bytes: a thumbnail again. The PDF was over the cap: its name,
    # and that it was not kept.
    page.wait_for_function("document.querySelector('.pyclient-user img')?.naturalWidth === 8", timeout=TIMEOUT)
    missing = bubble.locator(".pyclient-media-missing")
    expect(missing.locator(".pyclient-media-name")).to_have_text("manual.pdf")
    expect(missing.locator(".pyclient-media-size")).to_have_text("not kept after reload")
    expect(page.locator(".pyclient-assistant")).to_have_text(
        f"Received: image/png {len(CHART)} bytes, application/pdf {len(big_pdf)} bytes")


def test_a_chat_that_takes_no_files(page, open_page):
    open_page(f"{PAGE}?accept=none")
    expect(page.get_by_role("button", name="Attach files")).to_be_hidden()
    assert paste(page, [("photo.png", "image/png", SMALL)]) == [True]
    expect(page.locator(".pyclient-attach-notice")).to_have_text("photo.png was not attached: this chat takes no files.")
    expect_previews(page, [])
    # A drag of files shows no highlight and is refused (cancelled, so the browser does not open the file).
    assert drag(page, [("photo.png", "image/png", SMALL)], ["dragenter", "dragover"]) == [False, True]
    assert page.evaluate("document.querySelector('.pyclient-chat').dataset.drop") is None
