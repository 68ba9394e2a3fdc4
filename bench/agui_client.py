"""`@ag-ui/client` for the benchmarks: installed with npm, bundled with esbuild, served from 127.0.0.1.

The official TypeScript client is the yardstick the benchmarks compare pyclient with. `build()`
runs `npm install` of the pinned `@ag-ui/client` and `esbuild` (its native binary comes from
npm too, as an optional dependency) into a per-user cache folder, bundles the client into one
ES module there and writes a stamp of the inputs: a second call with the same inputs returns at
once, as the runtime build does. Nothing of it goes into the repository. `route()` serves the
bundle at `/bench/agui-client.mjs` (pages import it from there; no CDN).

    python -m bench.agui_client         # build (or confirm) and print the bundle's path
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

__all__ = ["AGUI_CLIENT_VERSION", "ESBUILD_VERSION", "URL", "build", "bundle_dir", "route"]

AGUI_CLIENT_VERSION = "1.0.0"
ESBUILD_VERSION = "0.28.2"
URL = "/bench/agui-client.mjs"
"""Where `route()` serves the bundle."""

BUNDLE = "agui-client.mjs"
STAMP = ".stamp.json"
# What the pages use; esbuild drops the rest of the package.
ENTRY = 'export { HttpAgent } from "@ag-ui/client";\n'


def bundle_dir() -> Path:
    """The cache folder: `$XDG_CACHE_HOME` or `~/.cache`, then `pyclient/bench-agui-client-<version>`."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pyclient" / f"bench-agui-client-{AGUI_CLIENT_VERSION}"


def _inputs() -> dict[str, str]:
    return {"@ag-ui/client": AGUI_CLIENT_VERSION, "esbuild": ESBUILD_VERSION, "entry": ENTRY}


def _run(*args: str, cwd: Path) -> None:
    if shutil.which(args[0]) is None:
        raise RuntimeError(f"Cannot bundle @ag-ui/client for the benchmarks: `{args[0]}` is not on PATH; "
                           "install Node.js and npm (with access to the npm registry).")
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RuntimeError(f"`{' '.join(args)}` failed with exit code {proc.returncode}:\n"
                           f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def build(folder: Path | None = None, *, force: bool = False) -> Path:
    """Install and bundle `@ag-ui/client` once into `folder` (default `bundle_dir()`); return the bundle.

    Raises:
        RuntimeError: npm is missing, or `npm install` or esbuild failed (the message carries
            their output).
    """
    folder = folder or bundle_dir()
    bundle, stamp = folder / BUNDLE, folder / STAMP
    if not force and bundle.exists() and stamp.exists() and json.loads(stamp.read_text()) == _inputs():
        return bundle
    folder.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    package = {"private": True, "dependencies": {"@ag-ui/client": AGUI_CLIENT_VERSION, "esbuild": ESBUILD_VERSION}}
    (folder / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    (folder / "entry.mjs").write_text(ENTRY)
    _run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", cwd=folder)
    _run(str(folder / "node_modules" / ".bin" / "esbuild"), "entry.mjs", "--bundle", "--format=esm",
         "--platform=browser", "--target=es2022", "--minify", f"--outfile={BUNDLE}", "--log-level=warning", cwd=folder)
    stamp.write_text(json.dumps(_inputs()))
    return bundle


def route(bundle: Path | None = None) -> Route:
    """A route serving the bundle (built on first use when `bundle` is None) at `URL`."""
    path = bundle or build()

    async def endpoint(request: Request) -> Response:
        return FileResponse(path, media_type="text/javascript", headers={"cache-control": "no-cache"})

    return Route(URL, endpoint, methods=["GET", "HEAD"])


if __name__ == "__main__":
    print(build())
