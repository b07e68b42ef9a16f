"""The Python client's tests run against the real built server (dist/apps/server/src/main.js) on a
real PostgreSQL, spawned here so a test can kill it with SIGKILL and start it again.
test/e2e/client/python.e2e-spec.ts runs them inside ``npm test`` and passes
PARLEY_TEST_DATABASE_URL (an empty database of the test run's PostgreSQL) and PARLEY_TEST_NODE."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from parley import OpenedSession, Parley

PACKAGE = Path(__file__).resolve().parent.parent
REPOSITORY = PACKAGE.parent.parent
SERVER_MAIN = REPOSITORY / "dist" / "apps" / "server" / "src" / "main.js"
EXAMPLES = REPOSITORY / "examples" / "python"
# The examples run as child processes import the package from its sources, as pytest does.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE / "src"), os.environ.get("PYTHONPATH")]))
HEALTH_TIMEOUT_SECONDS = float(os.environ.get("TEST_HEALTH_TIMEOUT_MS", "30000")) / 1000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """The built server as a child process on a fixed port, so a restart keeps its address."""

    database_url: str
    port: int = field(default_factory=free_port)
    data_dir: str = field(default_factory=lambda: tempfile.mkdtemp(prefix="parley-py-"))
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        environment = {
            **os.environ,
            "DATA_DIR": self.data_dir,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "LOG_LEVEL": "warn",
            "AUTH_MODE": "disabled",
            "DATABASE_URL": self.database_url,
        }
        environment.pop("NODE_OPTIONS", None)
        log = open(Path(self.data_dir) / "server.log", "ab")  # noqa: SIM115 — the child keeps writing to it
        self.process = subprocess.Popen([os.environ.get("PARLEY_TEST_NODE", "node"), str(SERVER_MAIN)], env=environment, stdout=log, stderr=log)
        deadline = time.monotonic() + HEALTH_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited early ({self.process.returncode}): {self.log()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the server did not answer /healthz within {HEALTH_TIMEOUT_SECONDS} s: {self.log()[-2000:]}")

    def kill(self) -> None:
        """kill -9: the process gets no chance to clean up."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return (Path(self.data_dir) / "server.log").read_text(errors="replace")


def database_url() -> str:
    url = os.environ.get("PARLEY_TEST_DATABASE_URL")
    if not url:
        pytest.exit("PARLEY_TEST_DATABASE_URL is not set: run these tests with npm test (test/e2e/client/python.e2e-spec.ts)", returncode=2)
    return url


@pytest.fixture(scope="session")
def server() -> Iterator[ServerProcess]:
    process = ServerProcess(database_url())
    process.start()
    yield process
    process.stop()


@pytest.fixture
def parley(server: ServerProcess) -> Iterator[Parley]:
    with Parley(server.url) as client:
        yield client


@pytest.fixture
def session(parley: Parley, request: pytest.FixtureRequest) -> OpenedSession:
    return parley.open_session(f"python: {request.node.name}", workspace_name="python-tests")


QUESTIONS: list[dict[str, Any]] = [
    {
        "id": "db",
        "prompt": "Which database?",
        "options": [{"option_id": "pg", "label": "PostgreSQL"}, {"option_id": "sqlite", "label": "SQLite"}],
    }
]


class AgentProcess:
    """An example (examples/python/<name>/main.py) as its own process, its stdout read line by line."""

    def __init__(self, name: str, environment: dict[str, str]) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.process = subprocess.Popen(
            [sys.executable, str(EXAMPLES / name / "main.py")],
            env={**os.environ, **environment},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr = ""
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _line(self, timeout: float) -> str | None:
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return None

    def waiting(self, timeout: float = 60) -> str:
        """The pending id of the ``waiting <pending_id>`` line."""
        line = self._line(timeout)
        if line is None or not line.startswith("waiting "):
            self.process.kill()
            _, stderr = self.process.communicate()
            raise AssertionError(f"expected 'waiting <pending_id>', got {line!r}; stderr: {stderr}")
        return line.split()[1]

    def result(self, timeout: float = 60) -> tuple[int, Any, str, list[str]]:
        """Exit code, the JSON line, stderr, and every line printed after ``waiting``."""
        self.process.wait(timeout=timeout)
        assert self.process.stderr is not None
        stderr = self.process.stderr.read()
        lines: list[str] = []
        while (line := self._line(5)) is not None:
            lines.append(line)
        return self.process.returncode, json.loads(lines[-1]) if lines else None, stderr, lines

    def kill(self) -> None:
        """kill -9 of the waiting agent."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=20)
