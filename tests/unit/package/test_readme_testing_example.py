"""The README's "Testing your page" example and docs/testing.md's project are examples/testing/, file for
file, so the tested example is the documented one (quoted as text: both read as plain Markdown)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "testing"
FILES = {"web/index.html": "html", "web/pyscript.json": "json", "web/main.py": "python", "pyproject.toml": "toml",
         "tests/test_notes_page.py": "python"}


def readme_section() -> str:
    text = (ROOT / "README.md").read_text()
    return text[text.index("## Testing your page"):text.index("\n## ", text.index("## Testing your page"))]


def guide_section() -> str:
    text = (ROOT / "docs" / "testing.md").read_text()
    return text[text.index("## A project, file by file"):text.index("\n## ", text.index("## A project, file by file"))]


@pytest.mark.parametrize("doc", [readme_section, guide_section], ids=["README", "docs/testing.md"])
@pytest.mark.parametrize("name", sorted(FILES))
def test_the_docs_quote_the_file_exactly(name, doc):
    # The block that follows the file's name in backticks is the file's whole text.
    match = re.search(rf"`{re.escape(name)}`[^\n]*:\n\n```{FILES[name]}\n(.*?)```\n", doc(), re.DOTALL)
    assert match is not None, f"{doc.__name__} quotes no {name}"
    assert match.group(1) == (EXAMPLE / name).read_text()


def test_the_example_has_no_other_files():
    files = {p.relative_to(EXAMPLE).as_posix() for p in EXAMPLE.rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert files == set(FILES)
