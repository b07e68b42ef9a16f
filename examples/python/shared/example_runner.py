"""What every Python example shares: the client from PARLEY_URL / PARLEY_TOKEN, the output contract
(``waiting <pending_id>``, then one JSON line), one clear line and exit 1 on failure, and a small
state directory (PARLEY_STATE_DIR) that lets a restarted example resume instead of asking again."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley import AsyncParley, Backoff, OpenedSession, Parley, ParleyError, ParleyNotFoundError, ParleyUnreachableError


@dataclass
class ExampleEnv:
    name: str
    url: str
    token: str | None
    state_dir: Path
    actions_log: Path
    expires_in_seconds: int | None
    """PARLEY_EXPIRES_IN_SECONDS: the bundle expires unanswered after this long (default: never)."""

    def client(self) -> AsyncParley:
        # Unreachable at start-up: a few quick tries, then the one clear line (waiting, once asked, retries for good).
        return AsyncParley(self.url, self.token, attempts=3, backoff=Backoff(initial_seconds=0.15, max_seconds=1.0))

    def sync_client(self) -> Parley:
        return Parley(self.url, self.token, attempts=3, backoff=Backoff(initial_seconds=0.15, max_seconds=1.0))

    @property
    def run_file(self) -> Path:
        return self.state_dir / "run.json"

    def load_run(self) -> dict[str, Any] | None:
        try:
            loaded: dict[str, Any] = json.loads(self.run_file.read_text())
            return loaded
        except (FileNotFoundError, ValueError):
            return None

    def save_run(self, run: dict[str, Any]) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.run_file.write_text(json.dumps(run))

    def finish_run(self) -> None:
        """Forgets the run: the next start files a new task."""
        shutil.rmtree(self.state_dir, ignore_errors=True)

    @property
    def workspace(self) -> str:
        return f"examples/python/{self.name}"

    def new_run(self, opened: OpenedSession) -> dict[str, Any]:
        """Remembers a newly filed task and session, so a restart finds them (``load_run``)."""
        run: dict[str, Any] = {"session_id": opened.session_id, "task_id": opened.task_id}
        self.save_run(run)
        return run

    def record_action(self, action: str) -> None:
        """What the example's tool did, one JSON line per run of the tool (ACTIONS_LOG)."""
        self.actions_log.parent.mkdir(parents=True, exist_ok=True)
        with self.actions_log.open("a") as log:
            log.write(json.dumps({"action": action, "pid": os.getpid()}) + "\n")


def example_env(name: str) -> ExampleEnv:
    state_dir = Path(os.environ.get("PARLEY_STATE_DIR") or Path(tempfile.gettempdir()) / "parley-examples" / f"python-{name}")
    actions_log = Path(os.environ.get("ACTIONS_LOG") or state_dir / "actions.log")
    expires = os.environ.get("PARLEY_EXPIRES_IN_SECONDS")
    url = os.environ.get("PARLEY_URL") or "http://127.0.0.1:3000"
    return ExampleEnv(name, url, os.environ.get("PARLEY_TOKEN") or None, state_dir, actions_log, int(expires) if expires else None)


def print_waiting(pending_id: str) -> None:
    print(f"waiting {pending_id}", flush=True)


def print_result(result: dict[str, Any]) -> None:
    print(json.dumps(result), flush=True)


def run_example(env: ExampleEnv, body: Callable[[], None]) -> None:
    """Runs an example's body: failures become one line on stderr and exit 1."""
    try:
        body()
    except ParleyError as error:
        # A state file naming a session this server does not know (a new database): start afresh next time.
        if isinstance(error, ParleyNotFoundError):
            env.finish_run()
        if isinstance(error, ParleyUnreachableError):
            line = f"{env.name}: {error}. Start the server (npm start) or set PARLEY_URL."
        else:
            line = f"{env.name}: the server refused: {error} ({error.code})"
        print(line, file=sys.stderr, flush=True)
        sys.exit(1)
    except Exception as error:  # noqa: BLE001 — an example reports any failure as its one line
        print(f"{env.name}: {error}", file=sys.stderr, flush=True)
        sys.exit(1)
    sys.exit(0)
