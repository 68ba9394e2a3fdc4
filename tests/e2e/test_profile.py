"""Each test's browser context is the session profile's (tests/e2e/conftest.py), which keeps
Chromium's code cache; what a test leaves in it is gone before the next test, as in a new context."""

from __future__ import annotations

LEAVE = """async () => {
    localStorage.setItem("left", "over");
    sessionStorage.setItem("left", "over");
    document.cookie = "left=over; max-age=3600";
    await new Promise((done, failed) => {
        const request = indexedDB.open("leftover");
        request.onupgradeneeded = () => request.result.createObjectStore("rows");
        request.onsuccess = () => { request.result.close(); done(); };
        request.onerror = () => failed(request.error);
    });
    await caches.open("leftover");
}"""

FOUND = """async () => ({
    local: localStorage.length,
    cookie: document.cookie,
    databases: (await indexedDB.databases()).map(database => database.name),
    caches: await caches.keys(),
    clipboard: (await navigator.permissions.query({name: "clipboard-read"})).state,
})"""

CLEAN = {"local": 0, "cookie": "", "databases": [], "caches": [], "clipboard": "prompt"}


def test_what_a_test_leaves_in_the_profile_is_gone_before_the_next(profile, live_server):
    context = profile.context
    url = f"{live_server}/pyodide/pyodide-lock.json"   # a document of the site without Python
    page = context.new_page()
    page.goto(url)
    # Headless Chromium refuses the prompt, and a profile on disk keeps the refusal ("denied")
    # unless the clean-up set it back to "prompt" (as it did if an earlier test came here).
    refused = page.evaluate("navigator.clipboard.readText().then(() => 'read', error => error.name)")
    assert refused == "NotAllowedError"
    context.grant_permissions(["clipboard-read"], origin=live_server)
    context.route("**/never", lambda route: route.abort())
    page.evaluate(LEAVE)
    left = page.evaluate(FOUND)
    assert left == {"local": 1, "cookie": "left=over", "databases": ["leftover"], "caches": ["leftover"],
                    "clipboard": "granted"}, left
    second = context.new_page()       # a second tab, as a test of two tabs opens
    second.goto(url)

    profile.clean()

    assert context.pages == [profile.janitor]
    page = context.new_page()
    page.goto(url)
    assert page.evaluate(FOUND) == CLEAN
    assert page.evaluate("sessionStorage.length") == 0
    assert page.evaluate("fetch('/never').then(response => response.status)") == 404   # no route left
    profile.clean()
