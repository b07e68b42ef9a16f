"""The agent's memory of which answers it was already handed, so ``resume()`` hands each over once."""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import quote


@dataclass(frozen=True)
class LedgerEntry:
    pending_id: str
    handoff_key: str
    """The resume hand-off's ``Idempotency-Key`` (the successor turn id), or the pending id when the
    answer was not handed off."""
    at: str


class ResumeLedger(Protocol):
    """``claim`` must be atomic: of two concurrent claims of one id, one wins."""

    def claim(self, entry: LedgerEntry) -> bool: ...

    def release(self, pending_id: str) -> None: ...

    def get(self, pending_id: str) -> LedgerEntry | None: ...

    def has_key(self, handoff_key: str) -> bool: ...


class MemoryResumeLedger:
    """Lasts as long as the process: enough for an agent that is never restarted."""

    def __init__(self) -> None:
        self._entries: dict[str, LedgerEntry] = {}
        self._lock = threading.Lock()

    def claim(self, entry: LedgerEntry) -> bool:
        with self._lock:
            if entry.pending_id in self._entries or self.has_key(entry.handoff_key):
                return False
            self._entries[entry.pending_id] = entry
            return True

    def release(self, pending_id: str) -> None:
        with self._lock:
            self._entries.pop(pending_id, None)

    def get(self, pending_id: str) -> LedgerEntry | None:
        return self._entries.get(pending_id)

    def has_key(self, handoff_key: str) -> bool:
        return any(entry.handoff_key == handoff_key for entry in self._entries.values())


class FileResumeLedger:
    """One file per pending id (and one per hand-off key) in a directory, each created exclusively
    (``O_CREAT | O_EXCL``): atomic on a local file system, so two processes sharing the directory
    cannot both claim one answer, nor one hand-off re-sent under the same ``Idempotency-Key``."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def _file(self, kind: str, key: str) -> Path:
        return self.directory / f"{kind}-{quote(key, safe='')}.json"

    def _create(self, path: Path, text: str) -> bool:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return False
        with os.fdopen(descriptor, "w") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        return True

    def claim(self, entry: LedgerEntry) -> bool:
        self.directory.mkdir(parents=True, exist_ok=True)
        text = json.dumps(asdict(entry)) + "\n"
        if not self._create(self._file("bundle", entry.pending_id), text):
            return False
        if entry.handoff_key != entry.pending_id and not self._create(self._file("handoff", entry.handoff_key), text):
            self._file("bundle", entry.pending_id).unlink(missing_ok=True)
            return False
        return True

    def release(self, pending_id: str) -> None:
        entry = self.get(pending_id)
        if entry is not None and entry.handoff_key != pending_id:
            self._file("handoff", entry.handoff_key).unlink(missing_ok=True)
        self._file("bundle", pending_id).unlink(missing_ok=True)

    def get(self, pending_id: str) -> LedgerEntry | None:
        try:
            data = json.loads(self._file("bundle", pending_id).read_text())
        except FileNotFoundError:
            return None
        return LedgerEntry(pending_id=str(data["pending_id"]), handoff_key=str(data["handoff_key"]), at=str(data["at"]))

    def has_key(self, handoff_key: str) -> bool:
        return self._file("handoff", handoff_key).exists() or self._file("bundle", handoff_key).exists()
