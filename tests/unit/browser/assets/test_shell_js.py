"""assets/shell.js draws the chat's shell before Python runs with the chat's own words, so that
nothing the person reads changes when the `Chat` adopts it."""

from __future__ import annotations

import re

from pyclient.browser._chat import _shell
from pyclient.server import ASSETS


def shell_constant(name: str) -> str:
    found = re.search(rf'^export const {name} = "(.*)";$', (ASSETS / "shell.js").read_text("utf-8"), re.MULTILINE)
    assert found, f"shell.js exports no {name}"
    return found.group(1)


def test_the_shell_says_what_the_chat_says() -> None:
    for name in ("WELCOME", "WELCOME_SUGGESTED", "PLACEHOLDER"):
        assert shell_constant(name) == getattr(_shell, name), name


def test_the_shell_links_the_stylesheet_by_the_id_the_chat_looks_for() -> None:
    from pyclient.browser._chat._stylesheet import STYLE_ID

    assert f'const STYLE_ID = "{STYLE_ID}";' in (ASSETS / "shell.js").read_text("utf-8")
