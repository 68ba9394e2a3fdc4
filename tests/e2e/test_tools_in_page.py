"""Client tools behave the same in Pyodide as on CPython: same schemas, same results."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

from web.tests.tool_catalog import (
    CATALOG,
    async_tool,
    raising_tool,
    slow_tool,
    sync_tool,
)


def test_catalog_schemas_and_runs_match_cpython(open_page):
    page = open_page("/tests/tools.html")
    in_page = json.loads(page.locator("#result").text_content())

    on_cpython = [tool.to_agui_tool().model_dump(mode="json", by_alias=True) for tool in CATALOG]
    assert len(in_page["tools"]) == len(on_cpython) == 17
    for browser_tool, cpython_tool in zip(in_page["tools"], on_cpython):
        assert browser_tool == cpython_tool, browser_tool["name"]

    runs = in_page["runs"]
    assert runs["sync"] == {"content": "5", "error": None}
    assert runs["async"] == {"content": "ababab", "error": None}
    assert runs["slow"]["error"] == runs["slow"]["content"]
    assert "timed out after" in runs["slow"]["error"]
    assert runs["raising"]["error"] == runs["raising"]["content"]
    assert "kaput" in runs["raising"]["error"]
    assert "a" in runs["invalid"]["error"] and "integer" in runs["invalid"]["error"]

    # And the same calls on CPython give the very same results.
    async def cpython_runs():
        return {
            "sync": await sync_tool.execute('{"a": 2, "b": 3}'),
            "async": await async_tool.execute({"text": "ab", "repeat": 3}),
            "slow": await slow_tool.execute({}),
            "raising": await raising_tool.execute({"message": "kaput"}),
            "invalid": await sync_tool.execute('{"a": "two"}'),
        }

    # Playwright's sync API owns this thread's event loop, so CPython runs in another thread.
    with ThreadPoolExecutor(1) as pool:
        results = pool.submit(asyncio.run, cpython_runs()).result()
    for name, result in results.items():
        assert {"content": result.content, "error": result.error} == runs[name], name
