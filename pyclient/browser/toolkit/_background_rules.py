"""The bound of `background_tool()`, as a pure function: a CSS background value that would load a URL is refused.

Nothing here touches the browser, so the rule is tested on CPython
(tests/unit/browser/toolkit/test_toolkit_background_rules.py). `change_background` asks the browser whether a
value is a background at all (`CSS.supports`), then refuses one that would fetch anything,
judged on the value as given and as the browser serializes it, after whitespace, control and
invisible characters are removed and case is folded (`pyclient.browser.toolkit._rules.compact`).

```python
from pyclient.browser.toolkit._background_rules import background_loads_url

print(background_loads_url("linear-gradient(teal, navy)"))   # False
print(background_loads_url('U\\nRL("https://example.org/a.png")'))   # True
```
"""

from __future__ import annotations

from ._rules import compact

__all__ = ["background_loads_url"]

# CSS functions that make the browser fetch a URL (`url()` also covers `src()` and strings
# inside `image-set()` once the browser serializes the value).
_URL_FUNCTIONS = ("url(", "image-set(", "image(", "src(")


def background_loads_url(serialized: str) -> bool:
    """True when a CSS background value, as the browser serializes it, would fetch a URL
    (`url()`, `image-set()`, `image()`, `src()`)."""
    compacted = compact(serialized)
    return any(function in compacted for function in _URL_FUNCTIONS)
