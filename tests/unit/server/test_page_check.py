"""`blank_page_reason`: which PyScript pages would take their interpreter from a CDN (a blank page
offline), read as PyScript 0.7 reads a page's config, and which are served whole from here."""

from __future__ import annotations

import pytest

from pyclient.server._page_check import blank_page_reason

LOCAL_CONFIG = '{"interpreter": "./pyodide/pyodide.mjs", "packages": ["pyclient-agui"]}'
CONFIGS = {"pyscript.json": LOCAL_CONFIG, "/pyscript.json": LOCAL_CONFIG, "bare.json": '{"packages": []}',
           "cdn.toml": 'interpreter = "0.27.2"'}


def reason(html: str) -> str | None:
    return blank_page_reason(html, read_config=CONFIGS.get, hosts=["127.0.0.1:8000"])


@pytest.mark.parametrize("html", [
    '<script type="py" config="pyscript.json">print(1)</script>',
    '<script type="py" src="main.py" config="/pyscript.json"></script>',
    '<script type="py" config="http://127.0.0.1:8000/pyscript.json"></script>',
    '<script type="py" config="pyscript.json"></script><script type="py" src="more.py"></script>',
    '<script type="py" config=\'{"interpreter": "./pyodide/pyodide.mjs"}\'></script>',
    '<py-config>interpreter = "/pyodide/pyodide.mjs"</py-config><py-script>print(1)</py-script>',
    '<py-config src="pyscript.json"></py-config><script type="py"></script>',
    '<py-script config="pyscript.json">print(1)</py-script>',
    '<script type="py" config="missing.json"></script>',  # PyScript shows an error: not a blank page
    '<script type="py" config="{not json}"></script>',
    '<script type="module" src="/pyscript/core.js"></script><p>no Python</p>',
    '<script type="text/python">print(1)</script>',
])
def test_a_page_with_a_local_interpreter_is_not_blank(html):
    assert reason(html) is None


@pytest.mark.parametrize(("html", "start"), [
    ('<script type="py">print(1)</script>', 'its <script type="py"> has no config=, so PyScript loads its '
                                            'interpreter from a CDN. Fix: config="pyscript.json"'),
    ('<script type="PY" src="main.py"></script>', 'its <script type="py"> has no config='),
    ('<script type="mpy">print(1)</script>', 'its <script type="mpy"> has no config='),
    ("<py-script>print(1)</py-script>", "its <py-script> has no config="),
    ('<script type="py" config="https://cdn.example.org/pyscript.json"></script>',
     "its config= is https://cdn.example.org/pyscript.json, which is not on this server"),
    ('<script type="py" config="//cdn.example.org/pyscript.toml"></script>', "its config= is //cdn.example.org/"),
    ('<script type="py" config="http://127.0.0.1:9999/pyscript.json"></script>', "its config= is http://127.0.0.1:9999"),
    ('<script type="py" config="bare.json"></script>', "its config bare.json names no interpreter"),
    ('<script type="py" config="cdn.toml"></script>', "its config cdn.toml takes the interpreter from '0.27.2'"),
    ('<script type="py" config=\'{"packages": ["pyclient-agui"]}\'></script>', "its config in config= names no"),
    ('<py-config>packages = ["pyclient-agui"]</py-config><py-script></py-script>',
     "its config in <py-config> names no interpreter"),
    ('<py-config src="https://cdn.example.org/c.json"></py-config><script type="py"></script>',
     "its <py-config> is https://cdn.example.org/c.json"),
    ('<script type="py" config=\'{"interpreter": "https://cdn.example.org/pyodide.mjs"}\'></script>',
     "its config in config= takes the interpreter from 'https://cdn.example.org/pyodide.mjs'"),
])
def test_a_page_whose_interpreter_would_come_from_a_cdn_says_why_and_the_fix(html, start):
    found = reason(html)
    assert found is not None and found.startswith(start), found
    assert "Fix: " in found
