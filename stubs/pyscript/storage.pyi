# Stub for `pyscript.storage` (PyScript 0.7): a dict mirrored to an IndexedDB store.
from typing import Any

class Storage(dict[str, Any]):
    async def sync(self) -> None: ...

async def storage(name: str = "", storage_class: type[Storage] = ...) -> Storage: ...
