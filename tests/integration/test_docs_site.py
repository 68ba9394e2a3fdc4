"""The documentation site builds offline with warnings as errors, and holds what it promises.

One `mkdocs build --strict` of the repository's mkdocs.yml into a temporary folder (a module
fixture; a few seconds), then:

- every page of the nav is in the output, and every Markdown file of docs/ is in the nav;
- each API page has an anchor for every name in its module's `__all__` (read with `ast`, as
  griffe reads the source: the toolkit's modules import `js`), so a public name that
  loses its docstring or its export shows here;
- the guides quote real code: the testing guide holds the example project's files;
- no page loads anything from another host: no remote `<script src>`, `<link href>`,
  `<img src>`, `<iframe>`, CSS `url()`/`@import`, and no web-font host anywhere (links in
  prose, `<a href>`, are fine).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

# Each API page and the module it documents (the module's file, for its `__all__`).
API_PAGES = {
    "reference/pyclient.md": ("pyclient", "pyclient/__init__.py"),
    "reference/browser.md": ("pyclient.browser", "pyclient/browser/__init__.py"),
    "reference/toolkit.md": ("pyclient.browser.toolkit", "pyclient/browser/toolkit/__init__.py"),
    "reference/testing.md": ("pyclient.testing", "pyclient/testing/__init__.py"),
    "reference/server.md": ("pyclient.server", "pyclient/server/__init__.py"),
}
# Exported submodules documented on a page of their own rather than inside their parent's.
OWN_PAGE = {"pyclient.browser.toolkit"}
GUIDES = ["index.md", "getting-started.md", "registration.md", "renderers.md", "human-in-the-loop.md", "files.md", "chat.md",
          "toolkit.md", "python.md",
          "persistence.md", "testing.md", "deployment.md", "servers.md", "troubleshooting.md", "architecture.md"]

REMOTE = r"""["']?(?:https?:)?//"""
REMOTE_LOADS = [
    re.compile(rf"<script\b[^>]*\bsrc=\s*{REMOTE}", re.IGNORECASE),
    re.compile(rf"<link\b[^>]*\bhref=\s*{REMOTE}", re.IGNORECASE),
    re.compile(rf"<(?:img|source|video|audio|embed)\b[^>]*\b(?:src|srcset)=\s*{REMOTE}", re.IGNORECASE),
    re.compile(r"<iframe\b", re.IGNORECASE),
    re.compile(rf"url\(\s*{REMOTE}", re.IGNORECASE),
    re.compile(rf"@import\s+{REMOTE}", re.IGNORECASE),
    re.compile(r"fonts\.(?:googleapis|gstatic)\.com", re.IGNORECASE),
]


def nav_pages(nav: object) -> Iterator[str]:
    """The Markdown paths of a mkdocs nav, in order."""
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from nav_pages(item)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_pages(value)


def exported(path: Path) -> list[str]:
    """The module's `__all__`, read from its source."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise AssertionError(f"{path} has no __all__")


def html_of(site: Path, page: str) -> str:
    # use_directory_urls is false: docs/a/b.md is site/a/b.html
    return (site / page).with_suffix(".html").read_text()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    # mkdocs.yml's `paths: ["."]` points griffe at this checkout's source.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    started = time.monotonic()
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    log = build.stdout + build.stderr
    assert build.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    assert "WARNING" not in log, log
    print(f"docs built in {time.monotonic() - started:.1f} s")
    return out


def test_the_nav_lists_every_guide_and_the_api(site: Path) -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = list(nav_pages(config["nav"]))
    assert set(GUIDES) | set(API_PAGES) == set(nav)
    written = {path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md")}
    assert written == set(nav), "a Markdown file in docs/ is missing from the nav, or the nav names a missing one"
    for page in nav:
        html = html_of(site, page)
        assert "<h1" in html, page
    assert not (site / "screenshots.py").exists()  # a script, not a page
    assert (site / "images" / "welcome.png").is_file()  # the index's screenshots ship with the site


@pytest.mark.parametrize("api_page", sorted(API_PAGES))
def test_the_api_page_documents_every_public_name(site: Path, api_page: str) -> None:
    module, source = API_PAGES[api_page]
    html = html_of(site, api_page)
    names = exported(ROOT / source)
    assert names
    missing = [name for name in names
               if f"{module}.{name}" not in OWN_PAGE and f'id="{module}.{name}"' not in html]
    assert not missing, f"{api_page} has no entry for {missing}"


def test_the_api_page_shows_signatures_and_docstrings(site: Path) -> None:
    html = html_of(site, "reference/pyclient.md")
    text = re.sub(r"<[^>]+>", "", html)
    assert 'id="pyclient.client_tool"' in html and 'id="pyclient.Thread.send"' in html
    assert "requires_approval" in text          # client_tool's signature
    assert "Create a thread with this agent." in text   # Agent.thread's docstring


def test_the_testing_guide_quotes_the_example_project(site: Path) -> None:
    html = html_of(site, "testing.md")
    text = re.sub(r"<[^>]+>", "", html)
    assert "--8&lt;--" not in html and "--8<--" not in text  # every snippet was included
    for line in ("def test_add_note(pyclient_page, scripted_agent):", "def add_note(text: str) -&gt; str:"):
        assert line in text


def test_no_page_loads_anything_from_another_host(site: Path) -> None:
    offenders = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in {".html", ".css"}:
            continue
        content = path.read_text(errors="replace")
        for pattern in REMOTE_LOADS:
            for match in pattern.finditer(content):
                offenders.append(f"{path.relative_to(site)}: {content[match.start():match.start() + 100]!r}")
    assert not offenders, "\n".join(offenders)
    # The theme's own assets are local files.
    assert list((site / "assets").rglob("*.js")) and list((site / "assets").rglob("*.css"))


def test_the_remote_check_catches_what_it_looks_for() -> None:
    # The patterns above, tried on what a theme or a plugin would write if it reached out.
    samples = [
        '<script src="https://cdn.example/x.js"></script>',
        '<link rel="stylesheet" href="//fonts.example/css">',
        '<img alt="" src="http://example.org/a.png">',
        "@font-face { src: url( 'https://example.org/f.woff2') }",
        '<link rel="preconnect" href="https://fonts.gstatic.com">',
    ]
    for sample in samples:
        assert any(pattern.search(sample) for pattern in REMOTE_LOADS), sample
    assert not any(pattern.search('<a href="https://docs.ag-ui.com">AG-UI</a>') for pattern in REMOTE_LOADS)
