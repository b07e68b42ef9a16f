"""Each adapter with its real framework, the agent as its own process (examples/python/<name>):
asked through the framework's own mechanism, answered on REST, GraphQL and MCP in turn, rejected,
expired; and unreachable. The output contract is checked as printed: ``waiting <pending_id>``, one
JSON line, exit 0 (exit 1 and one line on stderr when the server cannot be reached)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import AgentProcess, ServerProcess
from surfaces import SURFACES, Surface, submit

from parley import Parley

APPROVE = [{"question_id": "approval_1", "selected_options": ["approve"], "custom_text": ""}]


def run_example(name: str, server: ServerProcess, state: Path, *, answers: list[dict[str, Any]] | None = None, reason: str | None = None, surface: Surface = "rest") -> tuple[Any, Any]:
    """Runs example ``name``, resolves its bundle on ``surface``, and returns the bundle as asked and the JSON line."""
    agent = AgentProcess(name, {"PARLEY_URL": server.url, "PARLEY_STATE_DIR": str(state / "state"), "ACTIONS_LOG": str(state / "actions.log")})
    pending_id = agent.waiting()
    with Parley(server.url) as parley:
        bundle = parley.get(pending_id)
    assert submit(surface, server.url, pending_id, answers=answers, reason=reason)
    code, result, stderr, lines = agent.result()
    assert (code, stderr, len(lines)) == (0, "", 1)
    return bundle, result


def actions(state: Path) -> list[str]:
    log = state / "actions.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("surface", SURFACES)
def test_langgraph_interrupt_becomes_one_bundle_and_the_thread_resumes_with_the_answer(server: ServerProcess, tmp_path: Path, surface: Surface) -> None:
    answers = [{"question_id": "plan", "selected_options": ["canary"], "custom_text": f"via {surface}"}]
    bundle, result = run_example("langgraph", server, tmp_path, answers=answers, surface=surface)
    assert [question.id for question in bundle.questions] == ["plan"]
    assert "[langgraph thread " in bundle.context
    assert result == {
        "answered": {
            "status": "answered",
            "pending_id": bundle.pending_id,
            "answers": [{"question_id": "plan", "selected_options": ["canary"], "selected_labels": ["Canary"], "custom_text": f"via {surface}"}],
        }
    }
    assert len(actions(tmp_path)) == 1 and "rolled out checkout: canary" in actions(tmp_path)[0]


@pytest.mark.parametrize("surface", SURFACES)
def test_agents_sdk_interruption_becomes_one_bundle_and_state_approve_runs_the_tool(server: ServerProcess, tmp_path: Path, surface: Surface) -> None:
    bundle, result = run_example("openai_agents", server, tmp_path, answers=APPROVE, surface=surface)
    assert bundle.action is not None and (bundle.action.name, bundle.action.arguments) == ("issue_refund", {"order_id": "A-1042", "amount_eur": 129})
    assert "issue_refund" in bundle.questions[0].prompt
    assert result == {
        "answered": {
            "decisions": [{"id": "call-refund", "tool_name": "issue_refund", "approved": True, "reason": ""}],
            "final_output": "Done: refunded 129 EUR on A-1042",
        }
    }
    assert len(actions(tmp_path)) == 1


def test_agents_sdk_denial_calls_state_reject_and_the_tool_does_not_run(server: ServerProcess, tmp_path: Path) -> None:
    deny = [{"question_id": "approval_1", "selected_options": ["deny"], "custom_text": "too much"}]
    _, result = run_example("openai_agents", server, tmp_path, answers=deny, surface="graphql")
    assert result["answered"]["decisions"] == [{"id": "call-refund", "tool_name": "issue_refund", "approved": False, "reason": "too much"}]
    assert "too much" in result["answered"]["final_output"] and "refunded" not in result["answered"]["final_output"]
    assert actions(tmp_path) == []


@pytest.mark.parametrize("surface", SURFACES)
def test_pydantic_ai_deferred_call_becomes_one_bundle_whose_receipt_binds_the_call(server: ServerProcess, tmp_path: Path, surface: Surface) -> None:
    bundle, result = run_example("pydantic_ai", server, tmp_path, answers=APPROVE, surface=surface)
    call = {"name": "deploy", "arguments": {"service": "checkout", "environment": "production"}}
    assert bundle.action is not None and bundle.action.model_dump() == call
    answered = result["answered"]
    assert answered["decisions"] == [{"id": "call-deploy", "tool_name": "deploy", "approved": True, "reason": ""}]
    assert answered["output"] == "Done: deployed checkout to production"
    with Parley(server.url) as parley:
        assert parley.verify_receipt(answered["receipt"], action=call, expect={"outcome": "answered", "selections": {"approval_1": ["approve"]}}).valid  # type: ignore[arg-type]
        assert parley.verify_receipt(answered["receipt"], action={**call, "arguments": {"service": "checkout", "environment": "staging"}}).reason == "action_mismatch"  # type: ignore[arg-type]
    assert len(actions(tmp_path)) == 1


@pytest.mark.parametrize("name", ["langgraph", "openai_agents", "pydantic_ai"])
def test_a_rejected_bundle_prints_its_reason_and_runs_no_tool(server: ServerProcess, tmp_path: Path, name: str) -> None:
    _, result = run_example(name, server, tmp_path, reason="not on a Friday", surface="mcp")
    assert result == {"rejected": "not on a Friday"}
    assert not any("rolled out" in line or "refunded" in line or "deployed" in line for line in actions(tmp_path))


@pytest.mark.parametrize("name", ["langgraph", "openai_agents", "pydantic_ai"])
def test_an_expired_bundle_is_reported_and_runs_no_tool(server: ServerProcess, tmp_path: Path, name: str) -> None:
    agent = AgentProcess(name, {"PARLEY_URL": server.url, "PARLEY_STATE_DIR": str(tmp_path / "state"), "ACTIONS_LOG": str(tmp_path / "actions.log"), "PARLEY_EXPIRES_IN_SECONDS": "1"})
    pending_id = agent.waiting()
    code, result, stderr, _ = agent.result()
    assert (code, stderr, result) == (0, "", {"expired": pending_id})
    assert not any("rolled out" in line or "refunded" in line or "deployed" in line for line in actions(tmp_path))


def test_an_unreachable_server_is_one_line_on_stderr_and_exit_1(tmp_path: Path) -> None:
    agent = AgentProcess("openai_agents", {"PARLEY_URL": "http://127.0.0.1:9", "PARLEY_STATE_DIR": str(tmp_path)})
    code, result, stderr, _ = agent.result()
    assert (code, result) == (1, None)
    assert stderr.count("\n") == 1 and "not reachable at http://127.0.0.1:9" in stderr
