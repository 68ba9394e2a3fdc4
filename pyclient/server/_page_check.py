"""Why a PyScript page would be blank offline: its interpreter would come from a CDN.

PyScript loads Pyodide (or MicroPython) from a CDN unless the page's config names an
`interpreter`. Offline, or wherever that CDN is out of reach, the page then stays blank, and
nothing on it says why. `blank_page_reason(html)` reads a page the way PyScript 0.7 finds its
config (a `<py-config>` element, else the `config=` of a `<script type="py">` or
`<py-script>`; the same for `mpy`) and returns why, with the fix, or None: no config at all, a
config off this server, or one (inline, or a local file read through `read_config`) that names
no local `interpreter`. A config it cannot read (a file it is not given, invalid JSON or TOML)
is not its case: PyScript shows an error for those. The causes: docs/troubleshooting.md
("Blank page").

```python
from pyclient.server._page_check import blank_page_reason

print(blank_page_reason('<script type="py" src="main.py"></script>'))   # its <script type="py"> has no config= ...
print(blank_page_reason('<script type="py" config="pyscript.json"></script>',
                        read_config=lambda url: '{"interpreter": "./pyodide/pyodide.mjs"}'))   # None
```
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Collection
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urlsplit

from .._base._json import loads

__all__ = ["blank_page_reason"]

# PyScript 0.7's two interpreters, by the prefix of their tags and script types.
_TYPES = ("py", "mpy")
_FIX = 'config="pyscript.json" (pyclient serve answers it, pyclient vendor writes it)'
# What PyScript fetches as a config file, not inline text (its `configDetails`).
_FILE = re.compile(r"\.(\w+)(?:\?\S*)?$")
_VERSION = re.compile(r"^\d+(\.\d+)*\S*$")


class _Scripts(HTMLParser):
    """Collects, per type, each script's attributes and each `<TYPE-config>` element (its `src` or text)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: dict[str, list[dict[str, str]]] = {kind: [] for kind in _TYPES}
        self.configs: dict[str, list[dict[str, str]]] = {kind: [] for kind in _TYPES}
        self._open_config: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for kind in _TYPES:
            if tag == f"{kind}-script" or (tag == "script" and values.get("type", "").strip().lower() == kind):
                self.scripts[kind].append(values)
            elif tag == f"{kind}-config":
                self._open_config = {**values, "text": ""}
                self.configs[kind].append(self._open_config)

    def handle_endtag(self, tag: str) -> None:
        if tag.endswith("-config"):
            self._open_config = None

    def handle_data(self, data: str) -> None:
        if self._open_config is not None:
            self._open_config["text"] += data


def _off_server(url: str, hosts: Collection[str]) -> bool:
    parts = urlsplit(url.strip())
    if url.strip().startswith("//"):
        return parts.netloc.lower() not in hosts
    return parts.scheme.lower() in ("http", "https") and parts.netloc.lower() not in hosts


def _parse(text: str, as_json: bool) -> Any:
    try:
        return loads(text) if as_json else tomllib.loads(text)
    except ValueError:  # JSONDecodeError, JSONLimitError and TOMLDecodeError alike: PyScript reports it
        return None


def _interpreter_problem(config: Any, where: str, hosts: Collection[str]) -> str | None:
    if not isinstance(config, dict):
        return None
    interpreter = config.get("interpreter")
    if not interpreter:
        return (f"its config {where} names no interpreter, so PyScript loads one from a CDN. "
                'Fix: add "interpreter": "./pyodide/pyodide.mjs" to it, or use ' + _FIX)
    if isinstance(interpreter, str) and (_off_server(interpreter, hosts) or _VERSION.match(interpreter.strip())):
        return (f"its config {where} takes the interpreter from {interpreter!r}, which is not on this server. "
                "Fix: \"interpreter\": \"./pyodide/pyodide.mjs\", or use " + _FIX)
    return None


def blank_page_reason(
    html: str,
    *,
    read_config: Callable[[str], str | None] = lambda url: None,
    hosts: Collection[str] = (),
) -> str | None:
    """Why the page `html` would be blank offline, ending with the fix; None when its interpreter is local.

    Args:
        html: the page.
        read_config: the text of a config the page names by a local URL (as written in the page), or None
            when there is no such file here.
        hosts: this server's `host:port` forms, lower-case: URLs to them are local.
    """
    found = _Scripts()
    found.feed(html)
    found.close()
    hosts = {host.lower() for host in hosts}
    for kind in _TYPES:
        if not found.scripts[kind] and not found.configs[kind]:
            continue
        sources = [(c.get("src") or c["text"], f"<{kind}-config>", c.get("type", "")) for c in found.configs[kind]]
        sources += [(s["config"], "config=", "") for s in found.scripts[kind] if "config" in s]
        if not sources:
            tag = f'<script type="{kind}">' if any("type" in s for s in found.scripts[kind]) else f"<{kind}-script>"
            return (f"its {tag} has no config=, so PyScript loads its interpreter from a CDN. "
                    f"Fix: {_FIX}")
        for value, attribute, declared in sources:
            text = value.strip()
            is_json = text.startswith("{") and text.endswith("}")
            file = None if is_json else _FILE.search(text)
            if file is None:  # inline JSON or TOML
                problem = _interpreter_problem(_parse(text, is_json or declared == "json"), f"in {attribute}", hosts)
            elif _off_server(text, hosts):
                return (f"its {attribute} is {text}, which is not on this server, so PyScript takes the config, "
                        f"and with it the interpreter, from elsewhere. Fix: {_FIX}")
            else:
                local = read_config(text)
                problem = None if local is None else _interpreter_problem(
                    _parse(local, file.group(1).lower() == "json"), text, hosts)
            if problem:
                return problem
    return None
