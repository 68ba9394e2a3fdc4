"""Files as AG-UI content parts on CPython: the media values, what a handler may return, the limits,
and what a saved thread keeps (a real `MemoryStore`, the scripted agent in process)."""

from __future__ import annotations

import json

import pytest
from ag_ui.core import ImagePart, TextPart, UserMessage
from pydantic import BaseModel

from pyclient import (
    Agent,
    Attachment,
    AttachmentError,
    Audio,
    ConfigurationError,
    Document,
    Image,
    MemoryStore,
    Video,
    client_tool,
)
from pyclient._tools._content import (
    as_attachment,
    content_of,
    from_part,
    keep_within,
    split_content,
    split_parts,
)
from pyclient._tools._media import format_size
from pyclient.testing import ScriptedAgent
from tests.helpers import PDF_BYTES, arun, png_bytes

PNG = png_bytes(2, 2)


# -- the values --------------------------------------------------------------------------------


def test_the_type_is_read_from_the_bytes_then_the_name_and_the_kind_from_the_type():
    assert Image(PNG).mime_type == "image/png" and Attachment(PDF_BYTES).mime_type == "application/pdf"
    assert Attachment(b"\xff\xd8\xff\xe0", filename="x").mime_type == "image/jpeg"
    assert Attachment(b"a,b\n", filename="t.csv").mime_type == "text/csv"
    assert Attachment(b"RIFF....WEBPVP8 ").mime_type == "image/webp"
    assert [Attachment(b"x", mime).kind for mime in ("image/gif", "audio/ogg", "video/webm", "text/plain")] == [
        "image", "audio", "video", "document"]
    # A named kind keeps its kind whatever the type says; an Image defaults to PNG.
    assert Document(b"x", "image/png").kind == "document" and Image(b"unknown").mime_type == "image/png"
    assert Audio(b"ID3").mime_type == "audio/mpeg" and Video(url="https://e.x/v.mp4").mime_type == "video/mp4"


def test_what_cannot_be_a_file_says_what_to_pass():
    with pytest.raises(AttachmentError, match="bytes or its url=, one of them"):
        Attachment()
    with pytest.raises(AttachmentError, match="bytes or its url=, one of them"):
        Image(PNG, url="https://e.x/a.png")
    with pytest.raises(AttachmentError, match=r"Cannot tell what 'notes' is: give its MIME type"):
        Attachment(b"plain words", filename="notes")
    with pytest.raises(AttachmentError, match=r"takes the file's bytes, got str.*Image.from_data_url"):
        Image("iVBORw0KGgo=")  # type: ignore[arg-type]
    with pytest.raises(AttachmentError, match="A str is not read as a file"):
        as_attachment("photo.png")
    with pytest.raises(AttachmentError, match=r"Cannot attach a dict"):
        as_attachment({"name": "x"})
    with pytest.raises(AttachmentError, match=r"Cannot attach 'missing.png'"):
        Attachment.from_path("/nonexistent/missing.png")


def test_paths_bytes_data_urls_and_ag_ui_parts_become_files(tmp_path):
    path = tmp_path / "chart.png"
    path.write_bytes(PNG)
    from_path = as_attachment(path)
    assert (from_path.filename, from_path.mime_type, from_path.data) == ("chart.png", "image/png", PNG)
    assert as_attachment(PNG) == Attachment(PNG)
    url = Image(PNG).data_url()
    assert url is not None and url.startswith("data:image/png;base64,") and Image.from_data_url(url) == Image(PNG)
    with pytest.raises(AttachmentError, match="base64 data: URL"):
        Image.from_data_url("https://example.com/a.png")
    part = ImagePart.model_validate(Image(PNG, filename="p.png").part())
    assert as_attachment(part) == Image(PNG, filename="p.png")


def test_a_part_is_ag_ui_json_and_reads_back_as_the_same_file():
    for media in (Image(PNG, filename="a.png"), Document(PDF_BYTES), Audio(b"OggS..."), Video(url="https://e.x/v.webm"),
                  Attachment(b"x,y", "text/csv", "t.csv")):
        part = media.part()
        message = UserMessage.model_validate({"id": "u", "role": "user", "content": [part]})
        assert message.content[0].model_dump(by_alias=True, exclude_none=True) == part
        assert from_part(part) == media
    # Damaged base64 and a provider's file handle are not files the page can show.
    assert from_part({"type": "image", "source": {"type": "data", "value": "@@@", "mimeType": "image/png"}}) is None
    assert from_part({"type": "document", "source": {"type": "file", "value": "file-1"}}) is None


def test_sizes_read_as_people_read_them():
    assert [format_size(n) for n in (0, 999, 1_000, 1_500, 12_500_000, 3_000_000_000)] == [
        "0 B", "999 B", "1 kB", "1.5 kB", "12.5 MB", "3 GB"]
    assert repr(Image(PNG, filename="a.png")) == f"Image(image/png, {len(PNG)} B, 'a.png')"


# -- what a handler returns --------------------------------------------------------------------


class Chart(BaseModel):
    title: str


def test_a_result_is_split_into_its_text_and_its_files():
    image = Image(PNG)
    assert split_content(image) == (None, (image,))
    assert split_content(["caption", image, "more"]) == ("caption\nmore", (image,))
    assert split_content([{"a": 1}, image]) == ({"a": 1}, (image,))
    assert split_content([{"a": 1}, 2, image]) == ([{"a": 1}, 2], (image,))
    assert split_content([1, 2]) == ([1, 2], ())  # no file: the list is the value
    assert split_content([TextPart(text="t"), ImagePart.model_validate(image.part())]) == ("t", (image,))
    assert content_of("", [image]) == [image.part()] and content_of("t", []) == "t"


def test_the_output_schema_validates_the_text_beside_the_files():
    @client_tool
    def snap() -> Image:
        """A picture."""
        return Image(PNG)

    @client_tool
    def chart() -> tuple[Chart, Image]:
        """A chart and its picture."""
        return (Chart(title="sales"), Image(PNG))  # type: ignore[return-value]

    @client_tool
    def wrong() -> tuple[Chart, Image]:
        """Returns no chart."""
        return [Image(PNG), {"colour": "red"}]  # type: ignore[return-value]

    assert snap.output_schema is None
    assert chart.output_schema is not None and chart.output_schema["properties"] == {"title": {"type": "string"}}
    result = arun(chart.execute("{}"))
    assert result.ok and json.loads(result.content) == {"title": "sales"} and result.media == (Image(PNG),)
    result = arun(wrong.execute("{}"))
    assert not result.ok and "does not match its output schema" in result.content and "title" in result.content
    assert arun(snap.execute("{}")).message_content() == [Image(PNG).part()]


def test_limits_are_checked_before_anything_is_sent_and_are_ints():
    agent = ScriptedAgent()
    agent.otherwise().say("ok")
    thread = Agent("m", "http://agent.test/agent", transport=agent.transport(), max_attachment_bytes=100).thread()
    with pytest.raises(AttachmentError, match=r"^big.bin is 101 B, over the 100 B a file may be\."):
        arun(thread.send("x", attachments=[Attachment(bytes(101), "application/octet-stream", "big.bin")]))
    with pytest.raises(AttachmentError, match="attachments= takes a list of files, got str"):
        arun(thread.send("x", attachments="photo.png"))
    assert thread.messages == [] and agent.requests == []
    with pytest.raises(ConfigurationError, match=r"max_message_bytes=-1 is not a size in bytes"):
        Agent("m", "/agent", max_message_bytes=-1)


# -- what a saved thread keeps -----------------------------------------------------------------


def test_files_survive_a_reload_and_one_over_the_cap_is_kept_as_its_name():
    big = Attachment(png_bytes(40, 40, (9, 9, 9)) + bytes(3_000), filename="big.png")
    small = Image(PNG, filename="small.png")

    @client_tool
    def snapshot() -> list[str | Image]:
        """A picture of the page."""
        return ["the page", small]

    agent = ScriptedAgent()
    agent.on("look").call("snapshot", call_id="c1").then_say("seen")
    store = MemoryStore()
    options = dict(transport=agent.transport(), client_tools=[snapshot], max_stored_file_bytes=2_000)
    thread = Agent("m", "http://agent.test/agent", **options).thread(thread_id="t", store=store)
    arun(thread.send("look", attachments=[small, big]))
    assert thread.run_status == "idle", thread.error
    # The live thread keeps every file; the saved one each file up to the cap.
    assert split_parts(thread.messages[0].content) == ("look", (small, big))

    again = Agent("m", "http://agent.test/agent", **options).thread(thread_id="t", store=store)
    arun(again.restore())
    text, files = split_parts(again.messages[0].content)
    assert text == "look" and files[0] == small
    assert not files[1].kept and files[1].filename == "big.png" and files[1].size == big.size
    # What the model is told of it from now on:
    assert files[1].part()["text"] == f"[big.png, {format_size(big.size)}: the file was not kept when this conversation was saved]"
    part = again.tool_part("c1")
    assert part.output == "the page" and part.media == (small,)
    # Saved and restored, a not-kept file is still one (its name and size), not plain text.
    [kept_part] = keep_within([big.part()], 2_000)
    assert from_part(kept_part) == files[1]


# -- a server's results with parts ---------------------------------------------------------------


def test_a_servers_result_with_parts_gives_the_part_its_files():
    from ag_ui.core import MessagesSnapshotEvent, ToolCallResultEvent

    from pyclient._conversation._machine import Conversation
    from pyclient._driver._projection import tool_part
    from tests.helpers import call_events
    from tests.unit.conversation.test_machine import run

    image = Image(PNG, filename="plot.png")
    conversation = Conversation("t")
    conversation.add_user_message("plot it")
    # A server-side tool (not offered by the page) answered with a caption and an image.
    run(conversation, *call_events("s1", "plot", {}),
        ToolCallResultEvent(message_id="r1", tool_call_id="s1",
                            content=[TextPart(text="the plot"), ImagePart.model_validate(image.part())]))
    part = tool_part(conversation, "s1", action_for=lambda call: None)
    assert (part.state, part.output, part.media) == ("output-available", "the plot", (image,))

    # The same from a MESSAGES_SNAPSHOT's tool message, a remote image known by its URL.
    messages = [m.model_dump(by_alias=True) for m in conversation.messages()]
    messages[-1]["content"] = [{"type": "image", "source": {"type": "url", "value": "https://e.x/p.png"}}]
    fresh = Conversation("t2")
    fresh.add_user_message("plot it")
    run(fresh, MessagesSnapshotEvent(messages=messages))
    part = tool_part(fresh, "s1", action_for=lambda call: None)
    [remote] = part.media
    assert remote.url == "https://e.x/p.png" and remote.data is None and remote.mime_type == "image/png"
