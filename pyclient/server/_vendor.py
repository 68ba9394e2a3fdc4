"""Copy the offline runtime and a `pyscript.json` into a static site folder (`pyclient vendor DIR`).

The folder then deploys to any static host, at its root or under a sub-path, with no CDN:

| written | what |
| --- | --- |
| `pyodide/` | Pyodide's core files, the page's wheels (`pyclient-agui`'s included) and `pyodide-lock.json` |
| `pyscript/` | PyScript's `dist/` (source maps left out) |
| `pyscript.json` | `page_config()`: the interpreter by a relative path, `"packages": ["pyclient-agui"]` |
| `.pyclient-vendor.json` | what this wrote, so a later run replaces exactly that |

Paths are relative to the page, so the config fits pages at the folder's top level. An existing
`pyscript.json` is the author's: it is kept unless it is the one a previous run wrote, or
`force=True`. A `pyodide/` or `pyscript/` folder a previous run did not write is refused the
same way (it is replaced whole).

```python
import json
from pyclient.server import page_config

print(json.dumps(page_config()["packages"]))      # ["pyclient-agui"]
print(page_config()["interpreter"])               # ./pyodide/pyodide.mjs
```
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._runtime import DISTRIBUTION, build

__all__ = ["CONFIG_NAME", "PURPOSES", "RECORD_NAME", "VendorError", "VendorReport", "page_config", "vendor"]

CONFIG_NAME = "pyscript.json"
RECORD_NAME = ".pyclient-vendor.json"
FOLDERS = ("pyodide", "pyscript")
# Source maps only serve devtools; they are a third of PyScript's dist.
SKIPPED_SUFFIXES = (".map",)
PURPOSES = {
    "pyodide/": "Pyodide, the page's wheels (pyclient-agui's included) and pyodide-lock.json, which lists them",
    "pyscript/": "PyScript, which starts Python in the page",
    CONFIG_NAME: 'the pages\' PyScript config: the interpreter in pyodide/ and "packages": ["pyclient-agui"]',
    RECORD_NAME: "vendor's record of what it wrote, so the next run replaces exactly that (no secret in it)",
}
"""What each entry `vendor` writes at the top of the folder is for (what `pyclient vendor` prints)."""


class VendorError(Exception):
    """The folder holds something `vendor` will not replace without `force`; the message says what and how."""


def page_config() -> dict[str, Any]:
    """The PyScript config for a page at the top of a vendored (or `pyclient serve`d) folder.

    The interpreter path is relative: PyScript resolves it against the page's URL, and Pyodide
    reads `pyodide-lock.json` (which lists only the local wheels) from the interpreter's folder.
    `passthrough` hands the packages straight to Pyodide, so no stale IndexedDB copy of an
    older lock is ever used.
    """
    return {
        "interpreter": "./pyodide/pyodide.mjs",
        "packages": [DISTRIBUTION],
        "packages_cache": "passthrough",
    }


def config_text() -> str:
    """`page_config()` as the file `vendor` writes (and `pyclient serve` answers for /pyscript.json)."""
    return json.dumps(page_config(), indent=2) + "\n"


@dataclass
class VendorReport:
    """What `vendor` did.

    Attributes:
        dest: the site folder.
        written: each file written, relative to `dest`, with its size in bytes (`RECORD_NAME` last).
        config: "written", "updated", "unchanged" or "kept" (the author's own `pyscript.json`).
    """

    dest: Path
    written: list[tuple[str, int]] = field(default_factory=list)
    config: str = "written"

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.written)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def vendor(dest: Path, *, force: bool = False, runtime: Path | None = None) -> VendorReport:
    """Write the runtime and a `pyscript.json` into the static site folder `dest`.

    Args:
        dest: the site folder (created if missing).
        force: replace a `pyodide/`, `pyscript/` or `pyscript.json` that a previous run did not write.
        runtime: a built runtime to copy from; built (or confirmed) with `build()` when None.

    Returns:
        A `VendorReport`.

    Raises:
        VendorError: `dest/pyodide` or `dest/pyscript` exists and no previous run wrote it.
        BuildError: the runtime could not be built.
    """
    dest.mkdir(parents=True, exist_ok=True)
    record_path = dest / RECORD_NAME
    try:
        record: dict[str, Any] = json.loads(record_path.read_text()) if record_path.is_file() else {}
    except ValueError:
        record = {}
    for name in FOLDERS:
        if (dest / name).exists() and name not in record.get("folders", []) and not force:
            raise VendorError(
                f"{dest / name} exists and pyclient vendor did not write it: move it away, "
                "or pass --force to replace it."
            )
    source = build(runtime)
    report = VendorReport(dest)
    for name in FOLDERS:
        shutil.rmtree(dest / name, ignore_errors=True)
        for path in sorted((source / name).rglob("*")):
            if not path.is_file() or path.name.startswith(".") or path.suffix in SKIPPED_SUFFIXES:
                continue
            rel = path.relative_to(source)
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            report.written.append((rel.as_posix(), target.stat().st_size))

    text = config_text()
    config = dest / CONFIG_NAME
    if not config.exists():
        report.config = "written"
    else:
        current = config.read_text(encoding="utf-8", errors="replace")
        if current == text:
            report.config = "unchanged"
        elif force or record.get("config_sha256") == _sha256(current):
            report.config = "updated"
        else:
            report.config = "kept"
    if report.config in ("written", "updated"):
        config.write_text(text, encoding="utf-8")
        report.written.append((CONFIG_NAME, config.stat().st_size))
    record_path.write_text(json.dumps({
        "distribution": DISTRIBUTION,
        "folders": list(FOLDERS),
        "config_sha256": _sha256(text) if report.config != "kept" else record.get("config_sha256"),
    }, indent=1) + "\n")
    report.written.append((RECORD_NAME, record_path.stat().st_size))
    return report
