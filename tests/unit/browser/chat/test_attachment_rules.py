"""The composer's rules on CPython (pyclient/browser/_chat/_attachment_rules.py): which files `accept=`
takes, how it reads in words, and the sentence for each file that is not attached or not sent."""

from __future__ import annotations

import pytest

from pyclient import AttachmentError, Image, ToolError
from pyclient._base._limits import Limits
from pyclient._tools._content import check_limits
from pyclient.browser._chat._attachment_rules import (
    accept_patterns,
    describe,
    refusal,
    send_refusal,
    takes,
)

LIMITS = Limits(max_attachment_bytes=10_000_000, max_message_bytes=20_000_000)


def test_patterns_are_read_lower_cased_once_each():
    assert accept_patterns(None) is None
    assert accept_patterns([]) == ()
    assert accept_patterns(["Image/*", " application/PDF ", "image/*"]) == ("image/*", "application/pdf")
    assert accept_patterns(("*/*",)) == ("*/*",)


@pytest.mark.parametrize("bad", [".pdf", "image", "*/png", "image/", "image/png, text/plain", ""])
def test_a_pattern_that_is_not_a_mime_type_is_refused_with_the_fix(bad):
    with pytest.raises(ValueError, match="accept= takes MIME patterns such as 'image/\\*'") as caught:
        accept_patterns([bad])
    assert repr(bad) in str(caught.value)


def test_one_string_is_not_a_list_of_patterns():
    with pytest.raises(ValueError, match=r"pass a list of MIME patterns, e.g. accept=\['image/\*'\]"):
        accept_patterns("image/*")


@pytest.mark.parametrize(("patterns", "mime", "taken"), [
    (None, None, True),                      # any file, its type not known: the core sniffs it
    (None, "text/plain", True),
    (("image/*",), "image/png", True),
    (("image/*",), "IMAGE/PNG", True),
    (("image/*",), "application/pdf", False),
    (("image/*",), None, False),             # a type not known is not one the chat takes
    (("application/pdf",), "application/pdf", True),
    (("application/pdf",), "application/pdfx", False),
    (("text/plain",), "text/plain;charset=utf-8", True),
    (("*/*",), "video/mp4", True),
    ((), "image/png", False),
])
def test_a_file_is_taken_by_its_type(patterns, mime, taken):
    assert takes(patterns, mime) is taken


@pytest.mark.parametrize(("patterns", "words"), [
    (None, "any file"),
    ((), "no files"),
    (("image/*",), "images"),
    (("image/*", "application/pdf"), "images and PDF files"),
    (("image/png", "image/jpeg", "text/csv"), "PNG images, JPEG images and CSV files"),
    (("audio/*", "video/*", "text/*"), "audio files, videos and text files"),
    (("application/x-custom",), "application/x-custom files"),
    (("application/msword", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"),
     "Word documents"),
    (("image/*", "*/*"), "any file"),
])
def test_the_patterns_in_words(patterns, words):
    assert describe(patterns) == words


def test_a_type_the_chat_does_not_take_is_named():
    patterns = ("image/*", "application/pdf")
    assert refusal("notes.txt", "text/plain", 12, patterns=patterns, held=[], limits=LIMITS) == (
        "notes.txt was not attached: this chat takes images and PDF files.")
    assert refusal("x", None, 12, patterns=patterns, held=[], limits=LIMITS) == (
        "x was not attached: this chat takes images and PDF files.")
    assert refusal("a.png", "image/png", 12, patterns=(), held=[], limits=LIMITS) == (
        "a.png was not attached: this chat takes no files.")
    assert refusal("a.png", "image/png", 12, patterns=patterns, held=[], limits=LIMITS) is None


def test_a_file_over_the_limit_is_said_in_the_cores_words_without_the_authors_fix():
    words = refusal("big.png", "image/png", 12_100_000, patterns=None, held=[], limits=LIMITS)
    assert words == "big.png is 12.1 MB, over the 10 MB a file may be. It was not attached."
    # The sentence is the core's own, up to where its advice to the page's author starts.
    with pytest.raises(AttachmentError) as caught:
        check_limits([Image.not_kept("image/png", "big.png", 12_100_000)], per_file=10_000_000,
                     per_message=20_000_000)
    assert str(caught.value).startswith(words.removesuffix(" It was not attached."))
    assert "Agent(" not in words
    # Exactly at the limit is within it.
    assert refusal("edge.png", "image/png", 10_000_000, patterns=None, held=[], limits=LIMITS) is None


def test_the_files_held_count_toward_the_message_limit():
    held = [Image.not_kept("image/png", "a.png", 9_000_000), Image.not_kept("image/png", "b.png", 9_000_000)]
    assert refusal("c.png", "image/png", 1_000_000, patterns=None, held=held, limits=LIMITS) is None
    assert refusal("c.png", "image/png", 2_500_000, patterns=None, held=held, limits=LIMITS) == (
        "The attachments come to 20.5 MB, over the 20 MB one message may carry. c.png was not attached.")
    # A file over both limits is named by the per-file one.
    small = Limits(max_attachment_bytes=1_000, max_message_bytes=500)
    assert refusal("d.png", "image/png", 2_000, patterns=None, held=[], limits=small) == (
        "d.png is 2 kB, over the 1 kB a file may be. It was not attached.")


def test_a_refused_send_says_nothing_was_sent():
    limit = AttachmentError("small.png is 70 B, over the 10 B a file may be. Attach a smaller file "
                            "(or raise Agent(max_attachment_bytes=...)); nothing was sent.", filename="small.png", limit=10)
    assert send_refusal(limit) == ("small.png is 70 B, over the 10 B a file may be. "
                                   "Nothing was sent: remove a file and send again.")
    unread = ToolError("a file (x.png) that could not be read: NotReadableError")
    assert send_refusal(unread) == "Nothing was sent: a file (x.png) that could not be read: NotReadableError"
    unknown = AttachmentError("Cannot tell what 'data' is: give its MIME type.", filename="data")
    assert send_refusal(unknown) == "Nothing was sent: cannot tell what 'data' is: give its MIME type."
