"""The runtime's `pyodide-lock.json`: the local wheels listed, each read from its own metadata.

A page installs only what this lock lists, each wheel with the sha256 of the file served. It is
written by hand because the `pyodide-lock` package (0.1.2) cannot parse the 314.x schema. A
dependency missing from the lock would make Pyodide fall back to a CDN, so `write_lock` names
each one and the build (`pyclient.server._runtime`) refuses them.

```python
from pyclient.server._lock import normalize

print(normalize("Typing_Extensions"), normalize("ruamel.yaml"))   # typing-extensions ruamel-yaml
```
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Any

__all__ = ["NOT_NEEDED_IN_PAGE", "file_sha256", "normalize", "wheel_entry", "write_lock"]

# Requirements that Pyodide's own stdlib or markers make unnecessary in the page.
NOT_NEEDED_IN_PAGE = {"eval-type-backport", "tzdata"}


def file_sha256(path: Path) -> str:
    """The file's sha256, hex, read a megabyte at a time."""
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def normalize(name: str) -> str:
    """A distribution name as the lock spells it (PEP 503)."""
    return name.lower().replace("_", "-").replace(".", "-")


def wheel_entry(wheel: Path) -> dict[str, Any]:
    """A pyodide-lock.json package entry read from the wheel's own metadata."""
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
        top_level = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
        if top_level:
            imports = zf.read(top_level).decode().split()
        else:
            imports = sorted({n.split("/")[0].removesuffix(".py") for n in names
                              if not n.split("/")[0].endswith((".dist-info", ".data"))})
    depends = []
    for req in meta.get_all("Requires-Dist") or []:
        if "extra ==" in req:  # optional extras are never installed in the page
            continue
        dep = req.split(";")[0].strip()
        for sep in "<>=!~[ (":
            dep = dep.split(sep)[0]
        depends.append(normalize(dep))
    return {
        "name": normalize(meta["Name"]),
        "version": meta["Version"],
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": file_sha256(wheel),
        "package_type": "package",
        "imports": [i for i in imports if i],
        "depends": depends,
        "unvendored_tests": False,
        "shared_library": False,
    }


def write_lock(pyodide_dir: Path, npm_lock: dict[str, Any]) -> list[tuple[str, str]]:
    """Write a lock that lists only the wheels in `pyodide_dir`, with `npm_lock`'s `info`.

    Returns:
        The (package, dependency) pairs whose dependency is not among the wheels (and not one
        the page does without, `NOT_NEEDED_IN_PAGE`), in the wheels' order; nothing is written then.
    """
    packages = {}
    for wheel in sorted(pyodide_dir.glob("*.whl")):
        entry = wheel_entry(wheel)
        packages[entry["name"]] = entry
    missing = [(entry["name"], dep) for entry in packages.values() for dep in entry["depends"]
               if dep not in packages and dep not in NOT_NEEDED_IN_PAGE]
    if missing:
        return missing
    for entry in packages.values():
        entry["depends"] = [d for d in entry["depends"] if d in packages]
    lock = {"info": npm_lock["info"], "packages": packages}
    (pyodide_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))
    return []
