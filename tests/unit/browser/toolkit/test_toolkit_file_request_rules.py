"""`file_request_tool()`'s bounds on CPython: which `accept` a factory takes, which files it refuses, the words the model gets.

The card itself (the picker, Decline, trusted events, the file read and sent) is tested in
Chromium (tests/e2e/test_tool_media.py).
"""

from __future__ import annotations

import pytest

from pyclient import ConfigurationError
from pyclient.browser.toolkit._file_request_rules import (
    DECLINED,
    accept_in_words,
    accepts,
    describe_accept,
    parse_accept,
    refusal,
    sent_text,
)

# -- accept ---------------------------------------------------------------------------------

@pytest.mark.parametrize("accept, tokens", [
    (None, ()),
    ("image/*", ("image/*",)),
    (" image/* , .PDF,.pdf ", ("image/*", ".pdf")),                 # trimmed, lower-cased, no repeats
    (["application/pdf", ".tar.gz"], ("application/pdf", ".tar.gz")),
    ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",
     ("application/vnd.openxmlformats-officedocument.wordprocessingml.document",)),
    ("image/svg+xml", ("image/svg+xml",)),
])
def test_accept_items_are_read(accept, tokens):
    assert parse_accept(accept) == tokens


@pytest.mark.parametrize("accept", ["", "image/*,", "pdf", "*/*", "image/", "/png", ". pdf", "image/*;q=1",
                                    "<img>", ["image/*", 3], ("",), 42])
def test_bad_accept_items_are_a_configuration_error_naming_them(accept):
    with pytest.raises(ConfigurationError, match="file_request_tool"):
        parse_accept(accept)


def test_an_empty_accept_list_is_refused_with_the_fix():
    with pytest.raises(ConfigurationError, match="Pass None for any file"):
        parse_accept([])


@pytest.mark.parametrize("name, mime, ok", [
    ("cat.png", "image/png", True),
    ("cat.PNG", "", False),                     # no type from the browser: extensions only
    ("scan.pdf", "", True),
    ("scan.PDF", "application/pdf", True),
    ("notes.txt", "text/plain", False),
    ("imagery.txt", "text/plain", False),       # "image" in the name is not a type
    ("x.pdf.exe", "application/x-msdownload", False),
    (".pdf", "", False),                        # a name that is only the extension
    ("photo", "image/jpeg; charset=binary", True),
])
def test_files_are_matched_as_browsers_match_accept(name, mime, ok):
    assert accepts(("image/*", ".pdf"), name, mime) is ok


def test_no_accept_takes_every_file_and_a_full_type_matches_exactly():
    assert accepts((), None, "") is True
    assert accepts(("text/csv",), "a.csv", "text/csv") is True
    assert accepts(("text/csv",), "a.csv", "text/plain") is False
    assert accepts(("image/*",), "a", "image") is False
    assert describe_accept(()) == "any file" and describe_accept(("image/*", ".pdf")) == "image/*, .pdf"


# -- refusals and words ---------------------------------------------------------------------

def test_a_refusal_says_what_is_wrong_and_what_to_do():
    accept = ("image/*", ".pdf")
    assert refusal("cat.png", "image/png", 2_000, accept=accept, max_bytes=10_000) is None
    assert refusal("cat.png", "image/png", 10_000, accept=accept, max_bytes=10_000) is None  # at the limit
    assert refusal("notes.txt", "text/plain", 10, accept=accept, max_bytes=10_000) == (
        "notes.txt is not a file this request takes (image/*, .pdf). Choose another file.")
    assert refusal("big.png", "image/png", 12_345, accept=accept, max_bytes=10_000) == (
        "big.png is 12.3 kB, over the 10 kB a file may be here. Choose a smaller file.")
    assert refusal(None, "text/plain", 1, accept=accept, max_bytes=10).startswith("This file is not a file")


def test_what_the_model_reads():
    assert sent_text("cat.png", "image/png", 2_300) == "The user chose the file cat.png (image/png, 2.3 kB)."
    assert sent_text(None, "application/pdf", 812) == "The user chose a file (application/pdf, 812 B)."
    assert DECLINED.startswith("The user declined to share a file.")


@pytest.mark.parametrize("accept, words", [
    ((), "Any file"),
    (("image/*",), "Images"),
    (("image/*", ".pdf"), "Images or .pdf files"),
    ((".pdf", ".docx"), ".pdf, .docx files"),
    (("audio/*", "video/*", "application/json"), "Audio files, videos or application/json files"),
    (("font/*",), "Font files"),
])
def test_what_the_person_reads_under_the_prompt(accept, words):
    assert accept_in_words(accept) == words
