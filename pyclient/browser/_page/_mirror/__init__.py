"""The chat's DOM when pyclient runs in a PyScript worker: mirror nodes, batched to the page.

The chat's widgets write to `MirrorElement`s as they would to DOM elements; the operations go
to the page in one message per task, where `pyclient/browser/assets/renderer.js` applies them
and forwards the events. `page_document()` (`pyclient.browser._page._document`) picks this or the
page's own `document`.

```python
from pyclient.browser._page._mirror import MirrorDocument

document = MirrorDocument(post=print, schedule=lambda flush: None)
document.createElement("p").textContent = "hi"
document.flush()          # [['e', 1, 'p'], ['t', 2, 'hi'], ['children', 1, [2]]]
```
"""

from ._document import MirrorDocument
from ._element import MirrorElement
from ._events import MirrorEvent
from ._node import MirrorFragment, MirrorNode, MirrorText

__all__ = ["MirrorDocument", "MirrorElement", "MirrorEvent", "MirrorFragment", "MirrorNode", "MirrorText"]
