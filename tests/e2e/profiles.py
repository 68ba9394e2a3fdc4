"""Chromium with a profile on disk, cleaned between its users: pages that boot from the code cache.

A context from `browser.new_context()` is off the record, and Chromium keeps no code cache for
such a profile: each page compiled Pyodide's 9 MB of wasm and every script again (a boot cost
about 6.5 s of CPU and 4 s here; from the code cache 3.5 s and 2.5 s). So the suite launches
Chromium with a profile on disk (`launch_persistent_context`) and, once a user of it is done,
leaves it as a new context would be (`Profile.clean`): its tabs closed, its routes, permissions
(`PROMPTED`) and cookies gone, every origin its tabs visited emptied (`STORAGE`), all but the
HTTP and code caches. tests/e2e/conftest.py hands one to every test as its `context`;
`module_page` boots its pages in another, one per site (`Profiles`), so a test's clean-up never
touches them.

```python
profile = Profile.launch(playwright.chromium, folder, base_url=site)
page = profile.context.new_page()
page.goto("/")
profile.clean()   # the tab closed, the site's storage emptied, the code cache kept
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PROMPTED", "STORAGE", "Profile", "Profiles"]

STORAGE = ("cookies,file_systems,indexeddb,local_storage,service_workers,cache_storage,"
           "shared_storage,storage_buckets,websql,interest_groups")
"""What `Profile.clean` empties for each origin (`Storage.clearDataForOrigin`): all but the caches."""

PROMPTED = ("clipboard-read", "clipboard-write")
"""Permissions a test asks for. Headless Chromium refuses their prompt, and a profile on disk keeps
the refusal ("denied" for every later page, which `clear_permissions` leaves): `clean` sets them
back to "prompt", what a new context shows."""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""


class Profile:
    """A browser context on disk, and its first tab, which stays open for `clean`."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.janitor = context.pages[0]   # a persistent context opens with one blank tab
        self.visited: set[str] = set()
        self.held: list[Any] = []
        # Both stay attached: Chromium drops a session's permission overrides when it detaches.
        self._browser = context.browser.new_browser_cdp_session()
        self._storage = context.new_cdp_session(self.janitor)
        context.on("page", lambda page: page.on("framenavigated", self._navigated))

    @classmethod
    def launch(cls, browser_type: Any, folder: Path, **options: Any) -> Profile:
        """Launch Chromium on a profile in `folder` (`launch_persistent_context`'s options)."""
        return cls(browser_type.launch_persistent_context(folder, **options))

    def _navigated(self, frame: Any) -> None:
        self.visited.add(_origin(frame.url))

    def new_page(self) -> Any:
        """A tab held until `close(tab)`: `clean` waits until every held tab is closed."""
        page = self.context.new_page()
        self.held.append(page)
        return page

    def close(self, page: Any) -> None:
        """Close a tab from `new_page`; once no held tab is left, `clean` the profile."""
        self.held.remove(page)
        page.close()
        if not self.held:
            self.clean()

    def reset_permissions(self, origins: Iterable[str]) -> None:
        """Every permission of `origins` as a new context has it: granted ones taken back, and the
        `PROMPTED` ones that headless Chromium refused (and the profile kept) back to "prompt"."""
        self.context.clear_permissions()
        for origin in origins:
            for name in PROMPTED:
                self._browser.send("Browser.setPermission",
                                   {"permission": {"name": name}, "setting": "prompt", "origin": origin})

    def clean(self) -> None:
        """Close every tab but the janitor; empty the profile as a new context would be."""
        for page in self.context.pages:
            if page is not self.janitor:
                self.visited.add(_origin(page.url))
                page.close()   # its workers and Web Locks go with it
        self.context.unroute_all(behavior="ignoreErrors")
        origins = sorted(self.visited - {""})
        for origin in origins:
            self._storage.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": STORAGE})
        self.context.clear_cookies()
        self.reset_permissions(origins)
        self.visited.clear()


class Profiles:
    """One Chromium with a profile on disk per site (base URL), launched on first use."""

    def __init__(self, browser_type: Any, folder: Path, *,
                 on_launch: Callable[[Any], None] = lambda browser: None, **options: Any) -> None:
        self._browser_type = browser_type
        self._on_launch = on_launch    # called with each new Chromium (its `Browser`)
        self._folder = folder
        self._options = options        # its launch and context options but `base_url`
        self._profiles: dict[str, Profile] = {}

    def __getitem__(self, base_url: str) -> Profile:
        if base_url not in self._profiles:
            folder = self._folder / str(len(self._profiles))
            profile = Profile.launch(self._browser_type, folder, **{**self._options, "base_url": base_url})
            self._on_launch(profile.context.browser)
            self._profiles[base_url] = profile
        return self._profiles[base_url]

    def close(self) -> None:
        for profile in self._profiles.values():
            profile.context.close()
        self._profiles.clear()
