"""Build the browser runtime: Pyodide, PyScript, the wheels and a local lock, all on 127.0.0.1.

The page must install everything from the dev server, never from a CDN, so this gathers:

- Pyodide's core files (`npm pack pyodide@…`; the npm tarball holds no wheels),
- PyScript's `dist/` (`npm pack @pyscript/core@…`),
- the wheels pyclient needs in the browser (`pip download`, pydantic_core's emscripten build
  included) and pyclient's own wheel,
- a `pyodide-lock.json` that lists exactly those wheels with the sha256 of each file served.

The build is idempotent: a stamp records its inputs (versions, requirements, a hash of
pyclient's sources) and a re-run with nothing changed returns at once.

```python
from devserver.assets import build

runtime = build()            # -> Path("runtime"), ready to serve
print(sorted(p.name for p in (runtime / "pyodide").glob("*.whl")))
```
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

__all__ = ["PYODIDE_VERSION", "PYSCRIPT_VERSION", "ROOT", "RUNTIME", "build"]

logger = logging.getLogger("pyclient.devserver")

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "runtime"

PYODIDE_VERSION = "314.0.7"
PYSCRIPT_VERSION = "0.7.31"
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


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _package_files() -> list[Path]:
    """pyclient's files that go into its wheel: the modules and the package data pyproject.toml
    lists (the PEP 561 `py.typed` marker, the chat's stylesheet), as setuptools would ship them."""
    package = ROOT / "pyclient"
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    data = [path for pattern in setuptools["package-data"]["pyclient"] for path in package.glob(pattern)]
    return sorted({*package.rglob("*.py"), *data})


def _source_hash() -> str:
    """Hash of everything that goes into pyclient's wheel."""
    digest = hashlib.sha256()
    for path in _package_files():
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    digest.update((ROOT / "pyproject.toml").read_bytes())
    return digest.hexdigest()


def _inputs() -> dict:
    return {
        "pyodide": PYODIDE_VERSION,
        "pyscript": PYSCRIPT_VERSION,
        "native": NATIVE_WHEELS,
        "pure": PURE_WHEELS,
        "pyclient": _source_hash(),
    }


def _run(*args: str, cwd: Path | None = None) -> None:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(
            f"`{' '.join(args)}` failed with exit code {proc.returncode}:\n"
            f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}\n"
            "The asset build needs npm and pip with access to their registries."
        )


def _npm_pack(spec: str, cache: Path) -> Path:
    """Return the tarball of `spec` (name@version), packing it once into `cache`."""
    name, _, version = spec.rpartition("@")
    tarball = cache / f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    if not tarball.exists():
        logger.info("npm pack %s", spec)
        _run("npm", "pack", "--silent", spec, cwd=cache)
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
            with tar.extractfile(member) as src, target.open("wb") as out:
                shutil.copyfileobj(src, out)


def _pip_download(dest: Path) -> None:
    common = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
              "--only-binary=:all:", "--python-version", PYODIDE_PYTHON, "-d", str(dest)]
    _run(*common, "--platform", PYODIDE_PLATFORM, "--implementation", "cp",
         "--abi", "cp" + PYODIDE_PYTHON.replace(".", ""), *NATIVE_WHEELS)
    _run(*common, *PURE_WHEELS)


def _build_pyclient_wheel(dest: Path, source_hash: str) -> Path:
    """Write pyclient's pure-Python wheel by hand.

    Why not `pip wheel`: it takes seconds, litters the tree with build/ and egg-info, and
    cannot put the source hash in the version. The hash in the file name means a changed
    source is a new URL, so no browser cache can ever serve a stale wheel against a new lock.
    """
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    version = f"{project['version']}+g{source_hash[:10]}"
    dist_info = f"pyclient-{version}.dist-info"
    files: dict[str, bytes] = {}
    for path in _package_files():
        files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    requires = "".join(f"Requires-Dist: {dep}\n" for dep in project["dependencies"])
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: pyclient\nVersion: {version}\n"
        f"Summary: {project['description']}\n{requires}"
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

    for old in dest.glob("pyclient-*.whl"):
        old.unlink()
    wheel = dest / f"pyclient-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            # A fixed timestamp keeps the wheel byte-identical for identical sources.
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel


def _normalize(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _wheel_entry(wheel: Path) -> dict:
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
        depends.append(_normalize(dep))
    return {
        "name": _normalize(meta["Name"]),
        "version": meta["Version"],
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": _sha256(wheel),
        "package_type": "package",
        "imports": [i for i in imports if i],
        "depends": depends,
        "unvendored_tests": False,
        "shared_library": False,
    }


def _write_lock(pyodide_dir: Path, npm_lock: dict) -> None:
    """Write a lock that lists only the local wheels.

    Hand-written because the `pyodide-lock` package (0.1.2) cannot parse the 314.x schema.
    A dependency missing from this lock would make Pyodide fall back to a CDN, so we fail
    here instead.
    """
    packages = {}
    for wheel in sorted(pyodide_dir.glob("*.whl")):
        entry = _wheel_entry(wheel)
        packages[entry["name"]] = entry
    for entry in packages.values():
        entry["depends"] = [d for d in entry["depends"] if d in packages or _missing(entry, d)]
    lock = {"info": npm_lock["info"], "packages": packages}
    (pyodide_dir / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True))


# Requirements that Pyodide's own stdlib or markers make unnecessary in the page.
_NOT_NEEDED_IN_PAGE = {"eval-type-backport", "tzdata"}


def _missing(entry: dict, dep: str) -> bool:
    if dep in _NOT_NEEDED_IN_PAGE:
        return False
    raise RuntimeError(
        f"{entry['name']} needs {dep!r}, which is not among the downloaded wheels. "
        "Add it to PURE_WHEELS in devserver/assets.py so the page never reaches for a CDN."
    )


def build(runtime: Path = RUNTIME, *, force: bool = False) -> Path:
    """Build (or confirm) the runtime folder and return it.

    Args:
        runtime: the output folder (git-ignored).
        force: rebuild even when the stamp matches.

    Returns:
        The runtime folder, holding `pyodide/` and `pyscript/`.

    Raises:
        RuntimeError: npm or pip failed; the message carries their output.
    """
    inputs = _inputs()
    stamp = runtime / STAMP
    if not force and stamp.exists() and json.loads(stamp.read_text()) == inputs:
        return runtime
    started = time.perf_counter()
    pyodide_dir, pyscript_dir, cache = runtime / "pyodide", runtime / "pyscript", runtime / ".cache"
    cache.mkdir(parents=True, exist_ok=True)
    old = json.loads(stamp.read_text()) if stamp.exists() else {}

    if force or old.get("pyodide") != inputs["pyodide"] or not (pyodide_dir / "pyodide.mjs").exists():
        tarball = _npm_pack(f"pyodide@{PYODIDE_VERSION}", cache)
        _extract(tarball, "package/", pyodide_dir, only=PYODIDE_FILES + ["pyodide-lock.json"])
        (pyodide_dir / "pyodide-lock.json").rename(cache / "npm-pyodide-lock.json")
    if force or old.get("pyscript") != inputs["pyscript"] or not (pyscript_dir / "core.js").exists():
        shutil.rmtree(pyscript_dir, ignore_errors=True)
        tarball = _npm_pack(f"@pyscript/core@{PYSCRIPT_VERSION}", cache)
        _extract(tarball, "package/dist/", pyscript_dir)
    if force or any(old.get(k) != inputs[k] for k in ("native", "pure", "pyodide")):
        for wheel in pyodide_dir.glob("*.whl"):
            if not wheel.name.startswith("pyclient-"):
                wheel.unlink()
        with tempfile.TemporaryDirectory() as tmp:
            _pip_download(Path(tmp))
            for wheel in Path(tmp).glob("*.whl"):
                shutil.move(wheel, pyodide_dir / wheel.name)
    _build_pyclient_wheel(pyodide_dir, inputs["pyclient"])
    _write_lock(pyodide_dir, json.loads((cache / "npm-pyodide-lock.json").read_text()))
    stamp.write_text(json.dumps(inputs))
    logger.info("runtime built in %.1f s", time.perf_counter() - started)
    return runtime


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description="Build the offline browser runtime.")
    parser.add_argument("--force", action="store_true", help="rebuild everything")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    started = time.perf_counter()
    runtime = build(force=args.force)
    print(f"runtime ready in {runtime} ({time.perf_counter() - started:.2f} s)")


if __name__ == "__main__":
    main()
