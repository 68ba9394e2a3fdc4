"""What `python_tool` sends its sandbox and what the model reads back, as pure functions.

`sandbox_request` is the JSON the page's `pyclientSandbox.run` takes (assets/sandbox.js);
`answer_of` turns the sandbox's JSON answer into the tool's result: a text (stdout, stderr, the
last expression's `repr`, each capped) and the files the code wrote under `/output/`, or a
`ToolError` whose text is what the model needs to go on (the traceback, a timeout, the memory
ceiling). `restarted` says when the model must be told that its earlier variables are gone.
Nothing here touches the browser (tests/unit/browser/toolkit/test_python_rules.py).

```python
from pyclient.browser.toolkit._python_rules import SandboxLimits, answer_of

limits = SandboxLimits(timeout_s=30, memory_mb=256, max_output_chars=1000, max_file_bytes=10**6)
answer = {"ok": True, "stdout": "3 rows\\n", "stdout_cut": 0, "stderr": "", "stderr_cut": 0,
          "value": "42", "outputs": [], "skipped": []}
print(answer_of(answer, limits, tool="run_python", restarted=False).splitlines())   # ['stdout:', '3 rows', 'result: 42']
```
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._base._errors import ToolError
from ..._tools._media import Attachment, Media, format_size

__all__ = ["SandboxLimits", "answer_of", "restarted", "sandbox_request"]

LOST = "Variables, imports and files from earlier calls are gone: import and load again what you need."


@dataclass(frozen=True)
class SandboxLimits:
    """A `python_tool`'s bounds: time per call, memory, text per stream, bytes of files back."""

    timeout_s: float
    memory_mb: int
    max_output_chars: int
    max_file_bytes: int


def sandbox_request(code: str, files: Mapping[str, bytes], limits: SandboxLimits, *, packages: Sequence[str],
                    runner: str, index_url: str) -> str:
    """The JSON text `pyclientSandbox.run(key, ...)` takes for one call."""
    return json.dumps({
        "code": code, "runner": runner, "indexURL": index_url, "packages": list(packages),
        "files": {name: base64.b64encode(data).decode() for name, data in files.items()},
        "timeoutMs": round(limits.timeout_s * 1000), "memoryBytes": limits.memory_mb * 2**20,
        "caps": {"stdout": limits.max_output_chars, "stderr": limits.max_output_chars,
                 "outputBytes": limits.max_file_bytes},
    })


def restarted(messages: Sequence[Any], tool: str, call_id: str) -> bool:
    """Whether the thread's history holds an earlier call of `tool` than `call_id`: a fresh
    interpreter then has lost what that call left (after a reload, a timeout or a crash)."""
    for message in messages:
        for call in getattr(message, "tool_calls", None) or ():
            if call.function.name == tool and call.id != call_id:
                return True
    return False


def _section(name: str, text: str, cut: int) -> list[str]:
    if not text and not cut:
        return []
    lines = [f"{name}:", text.rstrip("\n")]
    if cut:
        lines.append(f"[{name} cut: {cut:,} more characters not shown]")
    return lines


def answer_of(answer: Mapping[str, Any], limits: SandboxLimits, *, tool: str,
              restarted: bool) -> str | list[Any]:
    """The tool's result from the sandbox's answer: a text, or the text and the files.

    Raises:
        ToolError: the code raised (its traceback, after what it printed), ran past the time
            limit or the memory ceiling, or the sandbox did not start.
    """
    note = [f"[A new Python session: {LOST}]"] if restarted and answer.get("fresh") else []
    if answer.get("failed"):
        raise ToolError(f"The Python sandbox could not start: {answer['failed']}. Tell the user; do not call {tool} again.")
    if answer.get("ended") == "timeout":
        raise ToolError(
            f"The code ran longer than {limits.timeout_s:g} s and was stopped. The Python session was restarted: "
            f"{LOST} Make the code faster, or do the work in smaller steps.")
    if answer.get("ended"):
        raise ToolError(f"The run was stopped ({answer['ended']}). The Python session was restarted: {LOST}")
    crash = str(answer.get("error") or "") if answer.get("crashed") else ""
    if crash and "memory" not in crash.lower():
        raise ToolError(f"The Python sandbox stopped ({crash.strip().splitlines()[-1]}). The Python session was "
                        f"restarted: {LOST}")
    if crash or answer.get("error_type") == "MemoryError":
        raise ToolError(
            f"The code used more memory than the sandbox's {limits.memory_mb} MB allow "
            f"({answer.get('error_type') or answer.get('error') or 'the interpreter stopped'}). "
            + (f"The Python session was restarted: {LOST} " if answer.get("crashed") else "")
            + "Work on less data at a time.")
    printed = [*_section("stdout", answer.get("stdout", ""), answer.get("stdout_cut", 0)),
               *_section("stderr", answer.get("stderr", ""), answer.get("stderr_cut", 0))]
    if not answer.get("ok"):
        written = [file["name"] for file in answer.get("outputs", ())]
        kept = [f"(files written before the error are kept in /output/: {', '.join(written)})"] if written else []
        raise ToolError("\n".join([*note, *printed, str(answer.get("error")), *kept]))
    lines = [*note, *printed]
    if answer.get("value") is not None:
        value = str(answer["value"])
        if len(value) > limits.max_output_chars:
            value = value[:limits.max_output_chars] + f" [result cut: {len(value) - limits.max_output_chars:,} more characters]"
        lines.append(f"result: {value}")
    files: list[Media] = []
    for file in answer.get("outputs", ()):
        files.append(Attachment(base64.b64decode(file["data"]), file["mime"], file["name"]))
    if files:
        lines.append("files from /output/: " + ", ".join(f"{m.filename} ({m.mime_type}, {format_size(m.size)})"
                                                         for m in files))
    for file in answer.get("skipped", ()):
        lines.append(f"[not returned: /output/{file['name']} ({format_size(file['size'])}): over the "
                     f"{format_size(limits.max_file_bytes)} of files one call may return]")
    if not printed and answer.get("value") is None and not files:
        lines.append("(the code ran: it printed nothing and its last line is not an expression)")
    text = "\n".join(lines)
    return [text, *files] if files else text
