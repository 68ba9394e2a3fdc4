"""Static files for the dev server: `pyclient.server.StaticDir` (MIME types, gzip, ETags, cache headers).

```python
from pathlib import Path
from devserver.static import StaticDir

app = StaticDir(Path("web"))
```
"""

from pyclient.server._static import COMPRESSIBLE, MAX_PATH_LENGTH, MIME, MIN_GZIP_SIZE, StaticDir

__all__ = ["COMPRESSIBLE", "MAX_PATH_LENGTH", "MIME", "MIN_GZIP_SIZE", "StaticDir"]
