"""The agent process killed with kill -9 while it waits, the bundle answered meanwhile, and a new
process resuming on the same bundle exactly once: it never asks again and the tool runs once."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from conftest import AgentProcess, ServerProcess
from surfaces import submit

from parley import Parley

ANSWERS = {
    "langgraph": [{"question_id": "plan", "selected_options": ["all"], "custom_text": ""}],
    "openai_agents": [{"question_id": "approval_1", "selected_options": ["approve"], "custom_text": ""}],
    "pydantic_ai": [{"question_id": "approval_1", "selected_options": ["approve"], "custom_text": ""}],
}


@pytest.mark.parametrize("name", ["langgraph", "openai_agents", "pydantic_ai"])
def test_a_killed_agent_resumes_in_a_new_process_on_the_same_bundle_and_acts_once(server: ServerProcess, tmp_path: Path, name: str) -> None:
    environment = {"PARLEY_URL": server.url, "PARLEY_STATE_DIR": str(tmp_path / "state"), "ACTIONS_LOG": str(tmp_path / "actions.log")}
    first = AgentProcess(name, environment)
    pending_id = first.waiting()
    first.kill()
    assert first.process.returncode == -9
    assert submit("rest", server.url, pending_id, answers=ANSWERS[name])

    second = AgentProcess(name, environment)
    assert second.waiting() == pending_id
    code, result, stderr, lines = second.result()
    assert (code, stderr, len(lines)) == (0, "", 1)
    assert "answered" in result
    tool_runs = (tmp_path / "actions.log").read_text().splitlines()
    assert len(tool_runs) == 1, tool_runs
    assert str(second.process.pid) in tool_runs[0]

    # Never asked again: the session holds the one bundle.
    with Parley(server.url) as parley:
        session_id = parley.get(pending_id).session_id
    listed = httpx.get(f"{server.url}/api/v1/sessions/{session_id}/messages", timeout=10).json()["messages"]
    assert [message["metadata"]["pending_id"] for message in listed if message["type"] == "clarification_request"] == [pending_id]
