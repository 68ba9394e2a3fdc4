"""Build the offline browser runtime: Pyodide, PyScript, the wheels and a local lock, served from 127.0.0.1.

A page must install everything from its own server, never from a CDN, so this gathers
Pyodide's core files and PyScript's `dist/` (`npm pack`), the wheels pyclient needs in the
browser (`pip download`, pydantic_core's emscripten build included) and pyclient's own wheel
(distribution `pyclient-agui`, written from the files of the pyclient being run), a
`pyodide-lock.json` listing exactly those wheels with their sha256, and bytecode for the page
(`_bytecode`), so no boot compiles pyclient's modules again. The build is idempotent: a stamp
records its inputs (versions, requirements, a hash of pyclient's files), and a re-run with
nothing changed returns at once. It needs `npm`, `node` and `pip` with their registries; the
result goes to a per-user cache (`default_runtime_dir()`, or `PYCLIENT_RUNTIME_DIR`). Each step
is logged with its time; `BuildError` says in its first line what failed and how to fix it.

```python
from pyclient.server import default_runtime_dir, package_files

print(default_runtime_dir().name.startswith("runtime"))       # True
print(any(p.name == "chat.css" for p in package_files()))     # True
```
"""

from __future__ import annotations

import ast
import base64
import hashlib
import importlib.metadata
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ._bytecode import STDLIB_ZIP, BytecodeError, compile_for_pyodide, pyc_name
from ._lock import write_lock

__all__ = [
    "ASSETS", "COI_WORKER", "DISTRIBUTION", "PACKAGE", "PACKAGE_DATA", "PYODIDE_VERSION", "PYSCRIPT_VERSION",
    "RUNTIME_ENV", "BuildError", "build", "default_runtime_dir", "package_files",
]

logger = logging.getLogger("pyclient")

# The pyclient package being run: its files make pyclient's browser wheel.
PACKAGE = Path(__file__).resolve().parent.parent
# Package data that ships beside the modules (pyproject.toml's package-data says the same;
# tests/unit/package/test_runtime_files.py checks they agree).
PACKAGE_DATA = ["py.typed", "browser/assets/*"]
"""pyclient's files other than modules that its wheel carries, relative to the package."""
CPYTHON_ONLY = ("server", "testing")
"""pyclient's subpackages no page imports (this builder and the dev server, the pytest kit): left
out of the browser wheel, whose every file a page unpacks at each boot (a fifth of its bytes)."""
RUNTIME_ENV = "PYCLIENT_RUNTIME_DIR"
"""The environment variable that names the folder the runtime is built in (`default_runtime_dir()`)."""
DISTRIBUTION = "pyclient-agui"
"""pyclient's distribution name (the import name stays `pyclient`): the lock's entry and the
name a page's config lists in `"packages"`."""
# The wheel file name's form of it (PEP 427: `-` becomes `_`).
WHEEL_PREFIX = DISTRIBUTION.replace("-", "_") + "-"

ASSETS = PACKAGE / "browser" / "assets"
"""pyclient's files for the page: `pyclient.js` (the bootstrap a page loads before PyScript)
and what it imports, and `chat.css` (the chat's stylesheet, linked as a file under a strict
Content-Security-Policy), served at `/pyclient/` and vendored as `pyclient/`; and `COI_WORKER`.
Found by path, as package data: importing `pyclient.browser` needs the page's `js`."""
COI_WORKER = ASSETS / "coi-worker.js"
"""The service worker `pyclient vendor` writes at the top of a site, for hosts that cannot send
headers (cross-origin isolation for worker pages); not vendored in `pyclient/`, whose scope would
be that folder alone."""

PYODIDE_VERSION = "314.0.7"
"""The Pyodide release the runtime serves (`npm pack pyodide@...`)."""
PYSCRIPT_VERSION = "0.7.31"
"""The PyScript release the runtime serves (`npm pack @pyscript/core@...`)."""
# Pyodide 314's ABI: pydantic_core ships a wheel for exactly this platform tag.
PYODIDE_PLATFORM = "pyemscripten_2026_0_wasm32"
PYODIDE_PYTHON = "3.14"

# Compiled wheels, downloaded for Pyodide's platform.
NATIVE_WHEELS = ["pydantic-core==2.50.5"]
# Pure wheels; `--python-version 3.14` makes pip pick what Pyodide's Python accepts.
PURE_WHEELS = [
    "pydantic==2.14.4",
    "typing-extensions>=4.16",
    "typing-inspection>=0.4.4",
    "annotated-types",
    "ag-ui-protocol==1.0.0",
    "jsonpatch",
    "jsonpointer",
    # The chat renders assistant text as Markdown (imported on first render, not at boot).
    "markdown-it-py==4.3.0",
    "mdurl",
]
# Pyodide core files the page loads; the rest of the tarball (consoles, maps, d.ts) is not served.
PYODIDE_FILES = [
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "package.json",
]
STAMP = ".stamp.json"


class BuildError(RuntimeError):
    """The runtime could not be built. The message's first line says what failed and the fix;
    the lines after it carry the failing command's output."""


def package_version(package: Path = PACKAGE) -> str:
    """`__version__` of the pyclient package in `package`, read without importing it (the one
    version source: pyproject.toml reads the same assignment)."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise BuildError(f"{package / '__init__.py'} sets no `__version__ = \"...\"`.")


def _metadata(package: Path = PACKAGE) -> tuple[str, str, list[str]]:
    """pyclient's version, summary and (non-extra) requirements.

    A checkout (`package` beside a pyproject.toml naming `pyclient-agui`) is read from its
    pyproject.toml, so the wheel follows the sources even when the installed metadata is
    older or absent; an installed pyclient from its distribution's metadata.
    """
    version = package_version(package)
    pyproject = package.parent / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        if project.get("name") == DISTRIBUTION:
            return version, project.get("description", ""), list(project.get("dependencies", []))
    try:
        meta = importlib.metadata.metadata(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise BuildError(
            f"{DISTRIBUTION}'s distribution metadata is missing, so pyclient's browser wheel cannot be "
            f"written: install it (`pip install {DISTRIBUTION}`, or `pip install -e .` in a checkout)."
        ) from None
    requires = [r for r in meta.get_all("Requires-Dist") or [] if "extra ==" not in r]
    return version, meta["Summary"] or "", requires


def default_runtime_dir() -> Path:
    """Where the runtime is built: `$PYCLIENT_RUNTIME_DIR`, else a per-user cache folder
    (`$XDG_CACHE_HOME` or `~/.cache`, then `pyclient/runtime-<pyodide version>`)."""
    if os.environ.get(RUNTIME_ENV):
        return Path(os.environ[RUNTIME_ENV])
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pyclient" / f"runtime-{PYODIDE_VERSION}"


def package_files(package: Path = PACKAGE) -> list[Path]:
    """pyclient's files that go into its browser wheel: the modules and the package data, but
    the `CPYTHON_ONLY` subpackages."""
    return [path for path in _all_files(package) if path.relative_to(package).parts[0] not in CPYTHON_ONLY]


def _all_files(package: Path) -> list[Path]:
    data = [path for name in PACKAGE_DATA for path in package.glob(name) if path.is_file()]
    return sorted({*package.rglob("*.py"), *data})


def _source_hash(package: Path) -> str:
    """Hash of pyclient's files, the builder's own included (a new way of building the wheel is
    a new wheel)."""
    digest = hashlib.sha256()
    for path in _all_files(package):
        digest.update(path.relative_to(package.parent).as_posix().encode())
        digest.update(path.read_bytes())
    digest.update(json.dumps(_metadata(package)).encode())
    return digest.hexdigest()


def _inputs(package: Path) -> dict[str, Any]:
    return {
        "pyodide": PYODIDE_VERSION,
        "pyscript": PYSCRIPT_VERSION,
        "native": NATIVE_WHEELS,
        "pure": PURE_WHEELS,
        "pyclient": _source_hash(package),
        "bytecode": "unchecked-hash",  # the wheel carries .pyc (runtimes built before it did are rebuilt)
        "cpython_only": list(CPYTHON_ONLY),  # left out of the wheel (runtimes built with them are rebuilt)
    }


# What npm and pip print when their registry cannot be reached (DNS, refused, timeouts, proxies).
_UNREACHABLE = re.compile(
    r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|getaddrinfo"
    r"|NewConnectionError|Failed to establish a new connection|Max retries exceeded|ProxyError"
    r"|Temporary failure in name resolution|Could not fetch URL|ConnectTimeout|ReadTimeout",
    re.I,
)


@contextmanager
def _step(what: str) -> Iterator[None]:
    """Log `what` when it starts and its time when it ends (the `pyclient` command shows both)."""
    logger.info("%s ...", what)
    started = time.perf_counter()
    yield
    logger.info("%s: done in %.1f s", what, time.perf_counter() - started)


def _run(*args: str, cwd: Path | None = None) -> None:
    if shutil.which(args[0]) is None:
        raise BuildError(
            f"Cannot build pyclient's browser runtime: `{args[0]}` is not on PATH. Install npm (Node.js) "
            f"and pip, or point {RUNTIME_ENV} at a runtime folder built elsewhere."
        )
    command = " ".join(args[1:] if args[0] == sys.executable else args)
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        output = f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        tool = "npm" if args[0] == "npm" else "pip"
        if _UNREACHABLE.search(output):
            why = (f"{tool} cannot reach its package registry. Check the network and {tool}'s registry "
                   f"and proxy settings, or point {RUNTIME_ENV} at a runtime folder built elsewhere.")
        else:
            why = f"{tool} failed (exit code {proc.returncode}); its output follows."
        raise BuildError(f"`{command}` failed: {why}\n{output}")


def _npm_pack(spec: str, cache: Path) -> Path:
    """Return the tarball of `spec` (name@version), packing it once into `cache`."""
    name, _, version = spec.rpartition("@")
    tarball = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tarball.exists():
        with _step(f"npm pack {spec}"):
            _run("npm", "pack", "--loglevel=error", spec, cwd=cache)  # errors only: they say why
    return tarball


def _extract(tarball: Path, prefix: str, dest: Path, only: list[str] | None = None) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(tarball) as tar:
        for member in tar.getmembers():
            if not member.isfile() or not member.name.startswith(prefix):
                continue
            rel = member.name[len(prefix):]
            if only is not None and rel not in only:
                continue
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None  # a regular file always has a body
            with src, target.open("wb") as out:
                shutil.copyfileobj(src, out)


def _pip_download(dest: Path) -> None:
    common = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
              "--only-binary=:all:", "--python-version", PYODIDE_PYTHON, "-d", str(dest)]
    _run(*common, "--platform", PYODIDE_PLATFORM, "--implementation", "cp",
         "--abi", "cp" + PYODIDE_PYTHON.replace(".", ""), *NATIVE_WHEELS)
    _run(*common, *PURE_WHEELS)


def _build_pyclient_wheel(dest: Path, package: Path, source_hash: str,
                          bytecode: Mapping[str, bytes] | None = None) -> Path:
    """Write pyclient's pure-Python wheel by hand, from the package's own files (and `bytecode`:
    wheel path of a `.pyc` → its bytes, `compile_for_pyodide`'s, so the page compiles nothing).

    Why not `pip wheel`: it takes seconds, needs the project's source tree (an installed
    pyclient has none), and cannot put the source hash in the version. The hash in the file
    name means a changed source is a new URL, so no browser cache can ever serve a stale
    wheel against a new lock.
    """
    base_version, summary, requires_dist = _metadata(package)
    if bytecode:  # another file for the same sources: a browser holding the wheel without it must not reuse it
        source_hash = hashlib.sha256((source_hash + "".join(sorted(bytecode))).encode()).hexdigest()
    version = f"{base_version.split('+')[0]}+g{source_hash[:10]}"
    dist_info = f"{WHEEL_PREFIX}{version}.dist-info"
    files: dict[str, bytes] = {}
    for path in package_files(package):
        files[path.relative_to(package.parent).as_posix()] = path.read_bytes()
    files.update(bytecode or {})
    requires = "".join(f"Requires-Dist: {dep}\n" for dep in requires_dist)
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {DISTRIBUTION}\nVersion: {version}\n"
        f"Summary: {summary}\n{requires}"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: pyclient-devserver\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n"
    )
    files[f"{dist_info}/top_level.txt"] = b"pyclient\n"
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()

    # `pyclient-*.whl`: the wheel's name before the distribution was renamed (a runtime built then).
    for old in [*dest.glob(f"{WHEEL_PREFIX}*.whl"), *dest.glob("pyclient-*.whl")]:
        old.unlink()
    wheel = dest / f"{WHEEL_PREFIX}{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            # A fixed timestamp keeps the wheel byte-identical for identical sources.
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel


def _bytecode(pyodide_dir: Path, lock_info: Mapping[str, Any], package: Path) -> dict[str, bytes]:
    """The `.pyc` of each of pyclient's modules, compiled by the runtime's Pyodide (`compile_for_pyodide`)."""
    sources = {path.relative_to(package.parent).as_posix(): path.read_bytes()
               for path in package_files(package) if path.suffix == ".py"}
    try:
        tag, compiled = compile_for_pyodide(pyodide_dir, lock_info, sources)
    except BytecodeError as exc:
        raise BuildError(str(exc)) from exc
    return {pyc_name(name, tag): data for name, data in compiled.items()}


def _compile_stdlib(pyodide_dir: Path, lock_info: Mapping[str, Any]) -> None:
    """Add each module's `.pyc` beside its source in `python_stdlib.zip` (where `zipimport` looks
    first), unless it has them: npm's Pyodide ships the standard library as sources only, which
    every boot compiled again (the sources stay, for tracebacks)."""
    stdlib = pyodide_dir / "python_stdlib.zip"
    with zipfile.ZipFile(stdlib) as zf:
        entries = [(info, zf.read(info)) for info in zf.infolist()]
    names = {info.filename for info, _ in entries}
    sources = {info.filename: data for info, data in entries
               if info.filename.endswith(".py") and info.filename + "c" not in names}
    if not sources:
        return
    try:
        _, compiled = compile_for_pyodide(pyodide_dir, lock_info, sources, root=STDLIB_ZIP)
    except BytecodeError as exc:
        raise BuildError(str(exc)) from exc
    partial = stdlib.with_suffix(".zip.partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as zf:
        for info, data in entries:
            zf.writestr(info, data)
            if info.filename in compiled:
                pyc = zipfile.ZipInfo(info.filename + "c", date_time=info.date_time)
                pyc.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(pyc, compiled[info.filename])
    partial.replace(stdlib)


def _write_lock(pyodide_dir: Path, npm_lock: dict[str, Any]) -> None:
    """Write the lock of the local wheels (`pyclient.server._lock`), or refuse a dependency missing
    from them: Pyodide would fetch it from a CDN."""
    missing = write_lock(pyodide_dir, npm_lock)
    if missing:
        name, dep = missing[0]
        raise BuildError(
            f"{name} needs {dep!r}, which is not among the downloaded wheels. "
            "Add it to PURE_WHEELS in pyclient/server/_runtime.py so the page never reaches for a CDN."
        )


def build(runtime: Path | None = None, *, package: Path = PACKAGE, force: bool = False) -> Path:
    """Build (or confirm) the runtime folder and return it.

    Args:
        runtime: the output folder; `default_runtime_dir()` when `None`.
        package: the pyclient package folder whose files make pyclient's browser wheel.
        force: rebuild even when the stamp matches.

    Returns:
        The runtime folder, holding `pyodide/` and `pyscript/`.

    Raises:
        BuildError: npm or pip is missing, failed or cannot reach its registry; the message's
            first line says which and the fix, the rest carries their output.
    """
    runtime = default_runtime_dir() if runtime is None else runtime
    inputs = _inputs(package)
    stamp = runtime / STAMP
    if not force and stamp.exists() and json.loads(stamp.read_text()) == inputs:
        return runtime
    started = time.perf_counter()
    logger.info("building the browser runtime in %s", runtime)
    pyodide_dir, pyscript_dir, cache = runtime / "pyodide", runtime / "pyscript", runtime / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    old = json.loads(stamp.read_text()) if stamp.exists() else {}

    if force or old.get("pyodide") != inputs["pyodide"] or not (pyodide_dir / "pyodide.mjs").exists():
        tarball = _npm_pack(f"pyodide@{PYODIDE_VERSION}", cache)
        _extract(tarball, "package/", pyodide_dir, only=PYODIDE_FILES + ["pyodide-lock.json"])
        (pyodide_dir / "pyodide-lock.json").replace(cache / "npm-pyodide-lock.json")
    if force or old.get("pyscript") != inputs["pyscript"] or not (pyscript_dir / "core.js").exists():
        shutil.rmtree(pyscript_dir, ignore_errors=True)
        tarball = _npm_pack(f"@pyscript/core@{PYSCRIPT_VERSION}", cache)
        _extract(tarball, "package/dist/", pyscript_dir)
    if force or any(old.get(k) != inputs[k] for k in ("native", "pure", "pyodide")):
        for wheel in pyodide_dir.glob("*.whl"):
            if not wheel.name.startswith(WHEEL_PREFIX):
                wheel.unlink()
        with tempfile.TemporaryDirectory() as tmp, _step("pip download the page's wheels"):
            _pip_download(Path(tmp))
            for wheel in Path(tmp).glob("*.whl"):
                shutil.move(wheel, pyodide_dir / wheel.name)
    npm_lock = json.loads((cache / "npm-pyodide-lock.json").read_text())
    with _step("compile the standard library with the runtime's Pyodide (Node.js), once"):
        _compile_stdlib(pyodide_dir, npm_lock["info"])
    with _step("compile pyclient's modules with the runtime's Pyodide (Node.js)"):
        bytecode = _bytecode(pyodide_dir, npm_lock["info"], package)
    with _step(f"write the {DISTRIBUTION} wheel"):
        _build_pyclient_wheel(pyodide_dir, package, inputs["pyclient"], bytecode)
    with _step("write pyodide-lock.json"):
        _write_lock(pyodide_dir, npm_lock)
    stamp.write_text(json.dumps(inputs))
    logger.info("runtime built in %.1f s", time.perf_counter() - started)
    return runtime
