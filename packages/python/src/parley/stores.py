"""Where a paused run waits: its serialized state under its bundle's pending id, so a new process
resumes it on that bundle instead of asking again."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Protocol
from urllib.parse import quote, unquote

__all__ = ["FileRunStateStore", "RunStateStore"]


class RunStateStore(Protocol):
    """Where a paused run waits: its serialized RunState under its bundle's pending id."""

    def save(self, pending_id: str, state: str) -> None: ...

    def remove(self, pending_id: str) -> None: ...

    def stored(self) -> list[tuple[str, str]]: ...


class FileRunStateStore:
    """One file per pending id, written to a temporary name and renamed (never half written)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _file(self, pending_id: str) -> Path:
        return self.directory / f"{quote(pending_id, safe='')}.runstate.json"

    def save(self, pending_id: str, state: str) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(dir=self.directory, prefix=".saving-")
        with os.fdopen(descriptor, "w") as file:
            file.write(state)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self._file(pending_id))

    def remove(self, pending_id: str) -> None:
        self._file(pending_id).unlink(missing_ok=True)

    def stored(self) -> list[tuple[str, str]]:
        if not self.directory.is_dir():
            return []
        suffix = ".runstate.json"
        return [(unquote(path.name[: -len(suffix)]), path.read_text()) for path in sorted(self.directory.glob(f"*{suffix}"))]
