"""OpenAI Agents SDK: a run's tool-approval interruptions become one Parley bundle; its resolution
calls ``state.approve`` / ``state.reject`` (the person's note is the message the model sees) and the
run continues. The serialized ``RunState`` is stored with the bundle's pending id before anything
waits, so a new process resumes it (``resume_stored_runs``) and never asks again.

Needs the ``[openai-agents]`` extra."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from agents import Agent, RunResult, Runner, RunState
from agents.items import ToolApprovalItem

from ._approvals import ApprovalDecision, ApprovalRequest, action_of, approval_question, decisions_of
from ._async_client import AsyncParley
from .outcome import Outcome
from .stores import FileRunStateStore, RunStateStore

__all__ = ["AgentRun", "FileRunStateStore", "RunStateStore", "resume_stored_runs", "run_with_parley"]

MAX_APPROVALS = 4


class AgentRunner(Protocol):
    def __call__(self, agent: Agent[Any], input: str | RunState[Any, Any]) -> Awaitable[RunResult]: ...


async def _default_runner(agent: Agent[Any], input: str | RunState[Any, Any]) -> RunResult:
    return await Runner.run(agent, input)


@dataclass
class AgentRun:
    result: RunResult
    decisions: list[ApprovalDecision] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    """Each bundle's outcome, in order (its ``receipt`` binds the calls asked)."""


def _requests_of(interruptions: Sequence[ToolApprovalItem]) -> list[ApprovalRequest]:
    requests: list[ApprovalRequest] = []
    for item in interruptions:
        text = item.arguments or "{}"
        try:
            arguments: Any = json.loads(text)
        except ValueError:
            arguments = text
        requests.append(ApprovalRequest(id=str(item.call_id), tool_name=str(item.tool_name), arguments=arguments))
    return requests


async def _continue(
    parley: AsyncParley,
    agent: Agent[Any],
    store: RunStateStore,
    pending_id: str,
    state: RunState[Any, Any],
    runner: AgentRunner,
) -> tuple[RunResult, list[ApprovalDecision], Outcome]:
    interruptions = state.get_interruptions()[:MAX_APPROVALS]
    outcome = await parley.outcome(pending_id)
    decisions = decisions_of(_requests_of(interruptions), outcome)
    for item, decision in zip(interruptions, decisions):
        if decision.approved:
            state.approve(item)
        else:
            state.reject(item, rejection_message=decision.reason or f"{decision.tool_name} was denied")
    result = await runner(agent, state)
    store.remove(pending_id)
    return result, decisions, outcome


async def _drive(
    parley: AsyncParley,
    session_id: str,
    agent: Agent[Any],
    store: RunStateStore,
    runner: AgentRunner,
    on_asked: Callable[[str], None] | None,
    expires_in_seconds: int | None,
    run: AgentRun,
) -> AgentRun:
    while run.result.interruptions:
        requests = _requests_of(run.result.interruptions[:MAX_APPROVALS])
        state = run.result.to_state()
        handle = await parley.ask(
            session_id=session_id,
            questions=[approval_question(request, index) for index, request in enumerate(requests)],
            context="An OpenAI Agents SDK run is paused on tool calls that need your approval.",
            expires_in_seconds=expires_in_seconds,
            action=action_of(requests),
        )
        store.save(handle.pending_id, state.to_string())
        if on_asked is not None:
            on_asked(handle.pending_id)
        run.result, decided, outcome = await _continue(parley, agent, store, handle.pending_id, state, runner)
        run.decisions.extend(decided)
        run.outcomes.append(outcome)
    return run


async def run_with_parley(
    parley: AsyncParley,
    *,
    session_id: str,
    agent: Agent[Any],
    input: str,
    store: RunStateStore,
    runner: AgentRunner = _default_runner,
    on_asked: Callable[[str], None] | None = None,
    expires_in_seconds: int | None = None,
) -> AgentRun:
    """Runs the agent; while the run is interrupted for tool approvals, asks them as one bundle
    (one approve / deny question per call, at most four), applies the decisions and continues."""
    result = await runner(agent, input)
    return await _drive(parley, session_id, agent, store, runner, on_asked, expires_in_seconds, AgentRun(result))


async def resume_stored_runs(
    parley: AsyncParley,
    *,
    session_id: str,
    agent: Agent[Any],
    store: RunStateStore,
    runner: AgentRunner = _default_runner,
    on_asked: Callable[[str], None] | None = None,
    expires_in_seconds: int | None = None,
) -> list[AgentRun]:
    """After a restart: rebuilds each stored run (``RunState.from_string``) and waits on its bundle
    by pending id — it never asks again — then continues it as ``run_with_parley`` would."""
    runs: list[AgentRun] = []
    for pending_id, text in store.stored():
        state: RunState[Any, Any] = await RunState.from_string(agent, text)
        if on_asked is not None:
            on_asked(pending_id)
        result, decisions, outcome = await _continue(parley, agent, store, pending_id, state, runner)
        runs.append(await _drive(parley, session_id, agent, store, runner, on_asked, expires_in_seconds, AgentRun(result, decisions, [outcome])))
    return runs
