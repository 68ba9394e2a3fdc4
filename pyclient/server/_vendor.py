"""Copy the offline runtime, pyclient's page bootstrap and a `pyscript.json` into a static site folder (`pyclient vendor DIR`).

The folder then deploys to any static host, with no CDN: it gets `pyodide/` (Pyodide, the
page's wheels and their lock), `pyscript/`, `pyclient/` (`pyclient.js` and what it imports,
`chat.css`), `pyscript.json` (`page_config()`: relative paths), and for worker pages `_headers`
and `coi-worker.js` (at the top, as a service worker controls only the pages at or below its
folder); `.pyclient-vendor.json` records what this wrote, so a later run replaces exactly that.
`_headers` lists the worker pages found when it is written: run `vendor` again after adding
one. An existing `pyscript.json`, `_headers` or `coi-worker.js` is the author's, kept unless a
previous run wrote it or `force=True`; a `pyodide/`, `pyscript/` or `pyclient/` a previous run
did not write is refused the same way. Each entry: docs/deployment.md ("For any static host").

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

from ._isolation import HEADERS_NAME, headers_file, worker_pages
from ._runtime import ASSETS, COI_WORKER, DISTRIBUTION, build

__all__ = ["CONFIG_NAME", "COI_WORKER_NAME", "PURPOSES", "RECORD_NAME", "VendorError", "VendorReport", "page_config",
           "vendor"]

CONFIG_NAME = "pyscript.json"
RECORD_NAME = ".pyclient-vendor.json"
COI_WORKER_NAME = COI_WORKER.name
"""The service worker's name at the top of a vendored folder (what a page's `data-coi-worker` names)."""
# The runtime's folders (from the built runtime), then pyclient's own (from the installed package).
FOLDERS = ("pyodide", "pyscript", "pyclient")
# Source maps only serve devtools; they are a third of PyScript's dist.
SKIPPED_SUFFIXES = (".map",)
PURPOSES = {
    "pyodide/": "Pyodide, the page's wheels (pyclient-agui's included) and pyodide-lock.json, which lists them",
    "pyscript/": "PyScript, which starts Python in the page",
    "pyclient/": "pyclient.js, which pages load before PyScript: worker pages that are not isolated run on the "
                 "main thread; chat.css, the chat's stylesheet, for pages that link it (a strict "
                 "Content-Security-Policy)",
    CONFIG_NAME: 'the pages\' PyScript config: the interpreter in pyodide/ and "packages": ["pyclient-agui"]',
    HEADERS_NAME: "COOP/COEP headers for the pages with a <script type=\"py\" worker> (Netlify, Cloudflare Pages)",
    COI_WORKER_NAME: "the same by a service worker, where headers cannot be set (GitHub Pages): pages opt in "
                     f'with data-coi-worker="{COI_WORKER_NAME}"',
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
        files: for each of `pyscript.json`, `_headers` and `coi-worker.js`: "written", "updated",
            "unchanged" or "kept" (the author's own file, left as it was).
        worker_pages: the pages found with a worker script (the ones `_headers` isolates).
    """

    dest: Path
    written: list[tuple[str, int]] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)
    worker_pages: list[str] = field(default_factory=list)

    @property
    def config(self) -> str:
        """What happened to `pyscript.json` (one of `files`' words)."""
        return self.files[CONFIG_NAME]

    @property
    def total_bytes(self) -> int:
        return sum(size for _, size in self.written)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _copy_folder(source: Path, target: Path, report: VendorReport, skip: Path | None = None) -> None:
    shutil.rmtree(target, ignore_errors=True)
    for path in sorted(source.rglob("*")):
        if not path.is_file() or path.name.startswith(".") or path.suffix in SKIPPED_SUFFIXES or path == skip:
            continue
        copied = target / path.relative_to(source)
        copied.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, copied)
        report.written.append((copied.relative_to(report.dest).as_posix(), copied.stat().st_size))


def _write_owned(report: VendorReport, name: str, text: str, ours: str | None, force: bool) -> str | None:
    """Write `text` as `name` unless the author's own file is there; the sha256 now on record for it.

    `ours` is the sha256 of the file a previous run wrote, from its record.
    """
    path = report.dest / name
    if not path.exists():
        status = "written"
    else:
        current = path.read_text(encoding="utf-8", errors="replace")
        if current == text:
            status = "unchanged"
        elif force or ours == _sha256(current):
            status = "updated"
        else:
            status = "kept"
    report.files[name] = status
    if status == "kept":
        return ours
    if status != "unchanged":
        path.write_text(text, encoding="utf-8")
        report.written.append((name, path.stat().st_size))
    return _sha256(text)


def vendor(dest: Path, *, force: bool = False, runtime: Path | None = None) -> VendorReport:
    """Write the runtime, pyclient's page bootstrap, a `pyscript.json`, `_headers` and the service worker into `dest`.

    Args:
        dest: the site folder (created if missing).
        force: replace a `pyodide/`, `pyscript/`, `pyclient/`, `pyscript.json`, `_headers` or
            `coi-worker.js` that a previous run did not write.
        runtime: a built runtime to copy from; built (or confirmed) with `build()` when None.

    Returns:
        A `VendorReport`.

    Raises:
        VendorError: `dest/pyodide`, `dest/pyscript` or `dest/pyclient` exists and no previous run wrote it.
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
    report = VendorReport(dest, worker_pages=worker_pages(dest, skip=FOLDERS))
    for name in ("pyodide", "pyscript"):
        _copy_folder(source / name, dest / name, report)
    # The service worker goes to the top instead: from pyclient/ it could control only pyclient/.
    _copy_folder(ASSETS, dest / "pyclient", report, skip=COI_WORKER)

    # A record from before `files` knew only the config's hash.
    owned: dict[str, str | None] = {CONFIG_NAME: record.get("config_sha256"), **record.get("files", {})}
    texts = {
        CONFIG_NAME: config_text(),
        HEADERS_NAME: headers_file(report.worker_pages),
        COI_WORKER_NAME: COI_WORKER.read_text(encoding="utf-8"),
    }
    files = {name: _write_owned(report, name, text, owned.get(name), force) for name, text in texts.items()}
    record_path.write_text(json.dumps({"distribution": DISTRIBUTION, "folders": list(FOLDERS), "files": files},
                                      indent=1) + "\n")
    report.written.append((RECORD_NAME, record_path.stat().st_size))
    return report
