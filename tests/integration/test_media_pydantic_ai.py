"""Files both ways against pydantic-ai's AGUIAdapter: a user's attachments, a client tool's image.

The agent (`tests.agents.media_agent`) runs a `FunctionModel` that records what each model call
received, files as `(media_type, bytes)`: what pyclient sent as AG-UI content parts must reach
the model as the same bytes with the same MIME types.
"""

from __future__ import annotations

import pytest

from pyclient import Agent, Attachment, AttachmentError, Document, Image, client_tool
from tests.helpers import PDF_BYTES, arun, png_bytes
from tests.integration.conftest import served_app

PNG = png_bytes(3, 2)

media = served_app("tests.agents.media_agent", "log")
"""The media agent, served for each test: its `/agent` URL and its log."""


def test_attachments_reach_the_model_as_the_same_bytes(media, transport, tmp_path):
    url, log = media
    pdf = tmp_path / "report.pdf"
    pdf.write_bytes(PDF_BYTES)
    thread = Agent("media", url, transport=transport).thread()
    arun(thread.send("What are these?", attachments=[Attachment(PNG, filename="chart.png"), pdf]))

    assert thread.run_status == "idle", thread.error
    [received] = log.received
    assert received.user == ["What are these?", ("image/png", PNG), ("application/pdf", PDF_BYTES)]
    assert thread.messages[-1].content == f"Received: image/png {len(PNG)} bytes, application/pdf {len(PDF_BYTES)} bytes"
    # On the wire: text first, then one part per file, the kind from the MIME type, the name in metadata.
    [body] = transport.bodies
    content = body["messages"][0]["content"]
    assert [part["type"] for part in content] == ["text", "image", "document"]
    assert content[1]["source"]["mimeType"] == "image/png" and content[1]["metadata"] == {"pyclient": {"filename": "chart.png"}}
    assert content[2]["metadata"] == {"pyclient": {"filename": "report.pdf"}}
    # The history keeps the message as sent: the user's files read back.
    user = thread.messages[0]
    assert [part.type for part in user.content] == ["text", "image", "document"]


def test_a_url_attachment_is_sent_as_a_url_source(media, transport):
    url, log = media
    thread = Agent("media", url, transport=transport).thread()
    attachment = Attachment(url="https://example.com/cat.jpg")
    assert attachment.kind == "image" and attachment.mime_type == "image/jpeg"
    arun(thread.send("see", attachments=[attachment]))

    assert log.received[-1].user == ["see", ("image/jpeg", "https://example.com/cat.jpg")]
    [body] = transport.bodies
    assert body["messages"][0]["content"][1] == {
        "type": "image", "source": {"type": "url", "value": "https://example.com/cat.jpg", "mimeType": "image/jpeg"}}


def test_a_client_tool_returning_an_image_reaches_the_model_as_an_image(media, transport):
    url, log = media

    @client_tool
    def snapshot_chart() -> Image:
        """Take a picture of the chart."""
        return Image(PNG, filename="chart.png")

    @client_tool
    def describe_report() -> list[str | Document]:
        """The report, with a caption."""
        return ["the quarterly report", Document(PDF_BYTES, filename="q3.pdf")]

    thread = Agent("media", url, client_tools=[snapshot_chart, describe_report], transport=transport).thread()
    arun(thread.send("call snapshot_chart"))
    assert thread.run_status == "idle", thread.error
    assert log.received[-1].tool_returns == {"snapshot_chart": [("image/png", PNG)]}
    assert thread.messages[-1].content == f"Tool returned: image/png {len(PNG)} bytes"
    part = thread.tool_part("call-snapshot_chart-1")
    assert part.state == "output-available" and part.output == "" and part.media == (Image(PNG, filename="chart.png"),)
    # No output schema for `-> Image`: the image is the whole result.
    assert snapshot_chart.output_schema is None

    arun(thread.send("call describe_report"))
    assert log.received[-1].tool_returns == {"describe_report": ["the quarterly report", ("application/pdf", PDF_BYTES)]}
    follow_up = transport.bodies[-1]
    tool_message = follow_up["messages"][-1]
    assert tool_message["role"] == "tool"
    assert [part["type"] for part in tool_message["content"]] == ["text", "document"]


def test_over_the_limit_nothing_is_added_or_sent(media, transport):
    url, log = media
    thread = Agent("media", url, transport=transport, max_attachment_bytes=1_000, max_message_bytes=1_500).thread()
    with pytest.raises(AttachmentError, match=r"big\.png is 2\.1 kB, over the 1 kB a file may be") as caught:
        arun(thread.send("look", attachments=[Attachment(png_bytes(30, 30, (1, 2, 3)) + bytes(2000), filename="big.png")]))
    assert caught.value.filename == "big.png" and caught.value.limit == 1_000
    small = Attachment(bytes(800), "application/octet-stream", "a.bin")
    with pytest.raises(AttachmentError, match=r"The attachments come to 1\.6 kB, over the 1\.5 kB one message may carry"):
        arun(thread.send("look", attachments=[small, small]))
    assert thread.messages == [] and transport.bodies == [] and log.received == []
