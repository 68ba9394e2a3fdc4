"""The README, docs/index.md, docs/getting-started.md and the testing example write their pages in
the one config style `pyclient new` writes: PyScript by a path relative to the page
(`pyscript/core.js`), `config="pyscript.json"`, and that file as `pyclient vendor` writes it.
The guide shows the starter's files as they are."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pyclient.server import page_config
from pyclient.server._starter import INDEX_HTML, starter_files
from tests.integration.test_wheel_to_page import guide_files

ROOT = Path(__file__).resolve().parents[3]
DOCS = ["README.md", "docs/index.md", "docs/getting-started.md"]
EXAMPLE = ROOT / "examples" / "testing" / "web"


def blocks(doc: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", (ROOT / doc).read_text(encoding="utf-8"), re.M | re.S)


def pages() -> dict[str, str]:
    """Every page the docs show (an ```html block that loads PyScript), the example's and the starter's."""
    found = {f"{doc} block {i}": block for doc in DOCS
             for i, block in enumerate(blocks(doc, "html")) if "pyscript" in block}
    return {**found, "examples/testing/web/index.html": (EXAMPLE / "index.html").read_text(),
            "pyclient new's index.html": INDEX_HTML}


class Tags(HTMLParser):
    """The page's tags that load PyScript or its config, as (tag, attributes)."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "link"):
            self.tags.append((tag, dict(attrs)))


def test_every_document_is_read():
    assert {name.split(" block")[0] for name in pages()} >= {*DOCS, "examples/testing/web/index.html"}


@pytest.mark.parametrize("name", sorted(pages()))
def test_the_page_loads_pyscript_and_its_config_relative_to_itself(name):
    parser = Tags()
    parser.feed(pages()[name])
    modules = [a["src"] for tag, a in parser.tags if tag == "script" and a.get("type") == "module"]
    styles = [a["href"] for tag, a in parser.tags if tag == "link" and a.get("rel") == "stylesheet"]
    configs = [a.get("config") for tag, a in parser.tags if tag == "script" and a.get("type") == "py"]
    # PyScript, after pyclient's page script when the page runs its Python in a worker.
    assert modules in (["pyscript/core.js"], ["pyclient/pyclient.js", "pyscript/core.js"])
    assert set(styles) <= {"pyscript/core.css"}
    assert configs and set(configs) == {"pyscript.json"}  # no inline JSON, no absolute path


def test_the_config_shown_is_the_one_vendor_and_new_write():
    shown = [block for doc in DOCS for block in blocks(doc, "json") if '"interpreter"' in block]
    assert len(shown) >= 2  # getting-started's and the README's testing section's
    assert all(json.loads(block) == page_config() for block in shown)
    assert (EXAMPLE / "pyscript.json").read_text() == starter_files()["pyscript.json"]
    assert page_config()["interpreter"].startswith("./")


def test_the_guide_shows_the_starter_files_as_pyclient_new_writes_them():
    starter = starter_files()
    assert guide_files() == {"index.html": starter["index.html"], "main.py": starter["main.py"]}
    assert starter["test_page.py"] in blocks("docs/getting-started.md", "python")
