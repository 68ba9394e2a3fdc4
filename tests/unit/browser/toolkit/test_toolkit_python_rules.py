"""`python_tool`'s pure parts on CPython: the sandbox's runner (`_sandbox_runner`, which the
sandbox's Pyodide runs as it is here) and what the model reads back (`_python_rules`)."""

from __future__ import annotations

import asyncio
import base64
import json
from types import SimpleNamespace

import pytest

from pyclient import ToolError
from pyclient.browser.toolkit import _sandbox_runner
from pyclient.browser.toolkit._python_rules import SandboxLimits, answer_of, restarted, sandbox_request
from tests.helpers import png_bytes

LIMITS = SandboxLimits(timeout_s=5, memory_mb=256, max_output_chars=100, max_file_bytes=1000)


@pytest.fixture
def runner(tmp_path, monkeypatch):
    """`execute` in a fresh namespace, its /data and /output under tmp_path."""
    monkeypatch.setattr(_sandbox_runner, "NAMESPACE", {"__name__": "__main__"})

    def run(code: str, files: dict | None = None, caps: tuple[int, int, int] = (100, 100, 1000)) -> dict:
        return json.loads(asyncio.run(_sandbox_runner.execute(code, files or {}, *caps, root=str(tmp_path))))

    run.root = tmp_path
    return run


def test_the_last_expression_is_the_value_and_globals_persist(runner):
    assert runner("x = 6\nprint('set')")["stdout"] == "set\n"
    answer = runner("import asyncio\nawait asyncio.sleep(0)\nx * 7")
    assert (answer["ok"], answer["value"], answer["stdout"]) == (True, "42", "")
    assert runner("y = x")["value"] is None   # an assignment is not a value


def test_files_in_and_changed_files_out(runner):
    answer = runner("open('%s/output/a.txt', 'w').write(open('%s/data/in.csv').read().upper())"
                    % (runner.root, runner.root), {"in.csv": b"a,b"})
    assert [(f["name"], f["mime"], base64.b64decode(f["data"])) for f in answer["outputs"]] == [("a.txt", "text/plain", b"A,B")]
    assert runner("1")["outputs"] == []            # unchanged files are not sent again
    answer = runner("open('%s/output/big.bin', 'wb').write(bytes(2000))" % runner.root)
    assert (answer["outputs"], answer["skipped"]) == ([], [{"name": "big.bin", "size": 2000}])
    assert runner("1", {"../escape.txt": b"x"})["ok"] and (runner.root / "data" / "escape.txt").exists()


def test_output_is_capped_and_counted(runner):
    answer = runner("print('x' * 250)\nimport sys\nprint('e' * 10, file=sys.stderr)")
    assert (answer["stdout"], answer["stdout_cut"]) == ("x" * 100, 151)
    assert (answer["stderr"], answer["stderr_cut"]) == ("e" * 10 + "\n", 0)


def test_a_traceback_starts_at_the_codes_first_frame_with_its_lines(runner):
    answer = runner("def f():\n    return 1 / 0\n\nf()")
    assert (answer["ok"], answer["error_type"]) == (False, "ZeroDivisionError")
    assert answer["error"].splitlines()[:3] == ["Traceback (most recent call last):",
                                                '  File "<code>", line 4, in <module>', "    f()"]
    assert "_sandbox_runner" not in answer["error"]
    assert runner("def (")["error"].endswith("SyntaxError: invalid syntax")
    deep = runner("def r(n):\n    return r(n - 1) if n else 1 / 0\nr(20)")["error"]
    assert "  ... 14 frames above cut ...\n" in deep and deep.endswith("ZeroDivisionError: division by zero")


def test_system_exit_ends_the_cell_not_the_interpreter(runner):
    assert runner("raise SystemExit")["ok"] is True
    assert runner("raise SystemExit(3)")["value"] == "SystemExit(3)"


def answer(**fields) -> dict:
    return {"ok": True, "stdout": "", "stdout_cut": 0, "stderr": "", "stderr_cut": 0, "value": None,
            "outputs": [], "skipped": [], **fields}


def test_what_the_model_reads():
    assert answer_of(answer(stdout="hi\n", value="3"), LIMITS, tool="t", restarted=False) == "stdout:\nhi\nresult: 3"
    assert answer_of(answer(), LIMITS, tool="t", restarted=False).startswith("(the code ran: it printed nothing")
    cut = answer_of(answer(stdout="x" * 100, stdout_cut=5, value="v" * 150), LIMITS, tool="t", restarted=False)
    assert "[stdout cut: 5 more characters not shown]" in cut and cut.endswith("[result cut: 50 more characters]")
    png = png_bytes(2, 2)
    text, image = answer_of(answer(outputs=[{"name": "c.png", "mime": "image/png", "size": len(png),
                                             "data": base64.b64encode(png).decode()}],
                                   skipped=[{"name": "big.bin", "size": 5000}]), LIMITS, tool="t", restarted=False)
    assert image.kind == "image" and image.data == png and image.filename == "c.png"
    assert "files from /output/: c.png (image/png" in text and "[not returned: /output/big.bin (5 kB): over the 1 kB of files one call may return]" in text


def test_failures_tell_the_model_what_happened():
    with pytest.raises(ToolError, match=r"^before\n|stdout:\nbefore\nTraceback"):
        answer_of(answer(ok=False, stdout="before\n", error="Traceback ...\nKeyError: 'a'"), LIMITS, tool="t",
                  restarted=False)
    with pytest.raises(ToolError, match="ran longer than 5 s and was stopped. The Python session was restarted"):
        answer_of({"ok": False, "ended": "timeout"}, LIMITS, tool="t", restarted=True)
    with pytest.raises(ToolError, match=r"more memory than the sandbox's 256 MB allow \(MemoryError\)"):
        answer_of(answer(ok=False, error_type="MemoryError", error="MemoryError"), LIMITS, tool="t", restarted=False)
    with pytest.raises(ToolError, match="could not start: no wasm. Tell the user; do not call t again"):
        answer_of({"ok": False, "failed": "no wasm"}, LIMITS, tool="t", restarted=False)


def test_a_fresh_interpreter_after_earlier_calls_says_so():
    earlier = SimpleNamespace(tool_calls=[SimpleNamespace(id="c1", function=SimpleNamespace(name="run_python"))])
    assert restarted([earlier], "run_python", "c2") and not restarted([earlier], "run_python", "c1")
    assert not restarted([earlier], "other", "c2")
    told = answer_of(answer(value="1", fresh=True), LIMITS, tool="t", restarted=True)
    assert told.startswith("[A new Python session: Variables, imports and files from earlier calls are gone")
    assert not answer_of(answer(value="1", fresh=False), LIMITS, tool="t", restarted=True).startswith("[A new")


def test_the_request_carries_files_limits_and_the_runner():
    request = json.loads(sandbox_request("1", {"a.csv": b"x"}, LIMITS, packages=["p"], runner="R", index_url="/pyodide/"))
    assert request["files"] == {"a.csv": "eA=="} and request["timeoutMs"] == 5000
    assert request["memoryBytes"] == 256 * 2**20 and request["caps"] == {"stdout": 100, "stderr": 100, "outputBytes": 1000}
    assert (request["runner"], request["packages"], request["indexURL"]) == ("R", ["p"], "/pyodide/")


def test_a_crash_is_not_called_a_memory_problem_unless_it_is_one():
    with pytest.raises(ToolError, match=r"^The Python sandbox stopped \(TypeError: bad\)\. The Python session was restarted"):
        answer_of({"ok": False, "crashed": True, "error": "Traceback ...\nTypeError: bad\n"}, LIMITS, tool="t", restarted=False)
    with pytest.raises(ToolError, match="more memory than the sandbox's 256 MB allow"):
        answer_of({"ok": False, "crashed": True, "error": "RangeError: the sandbox's memory ceiling"}, LIMITS, tool="t",
                  restarted=False)
