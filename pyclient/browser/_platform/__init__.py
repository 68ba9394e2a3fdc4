"""The page as the core's platform: `BrowserPlatform` with fetch, JS abort signals, IndexedDB and
Web Locks, the page's files, the DOM under the element binding, the console handler and
the startup error box. Imports the core below `_api` and `_page`.
"""
