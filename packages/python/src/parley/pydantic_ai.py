"""Pydantic AI: deferred tool calls (``DeferredToolRequests`` for tools that require approval)
become one Parley bundle, answered back as ``DeferredToolResults``. The tool call's name and
arguments are the bundle's ``action``, so the receipt binds exactly what was approved. With a
store, the run's messages are kept under the bundle's pending id before anything waits, so a new
process resumes on that bundle (``resume_stored_runs``) and never asks again.

Needs the ``[pydantic-ai]`` extra."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_ai.run import AgentRunResult

from ._approvals import ApprovalDecision, ApprovalRequest, action_of, approval_question, decisions_of
from ._async_client import AsyncParley
from .outcome import Outcome
from .stores import FileRunStateStore, RunStateStore

__all__ = ["FileRunStateStore", "PydanticAiRun", "RunStateStore", "resume_stored_runs", "run_with_parley"]

MAX_APPROVALS = 4
"""A bundle holds at most four questions: calls beyond the fourth of one step are denied, telling the model to ask for them again."""


@dataclass
class PydanticAiRun:
    result: AgentRunResult[Any]
    decisions: list[ApprovalDecision] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    """Each bundle's outcome, in order: its ``receipt`` is signed over the calls asked (the bundle's action)."""


def _requests_of(deferred: DeferredToolRequests) -> list[ApprovalRequest]:
    return [ApprovalRequest(id=call.tool_call_id, tool_name=call.tool_name, arguments=call.args_as_dict()) for call in deferred.approvals]


def _results_of(requests: Sequence[ApprovalRequest], decisions: Sequence[ApprovalDecision]) -> DeferredToolResults:
    approvals: dict[str, Any] = {}
    for decision in decisions:
        approvals[decision.id] = True if decision.approved else ToolDenied(decision.reason or f"{decision.tool_name} was denied")
    for request in requests[MAX_APPROVALS:]:
        approvals[request.id] = ToolDenied(f"at most {MAX_APPROVALS} tool calls are approved at once: call {request.tool_name} again")
    return DeferredToolResults(approvals=approvals)


async def _answered(
    parley: AsyncParley,
    agent: Agent[Any, Any],
    store: RunStateStore | None,
    pending_id: str,
    messages: list[ModelMessage],
    requests: Sequence[ApprovalRequest],
) -> tuple[AgentRunResult[Any], list[ApprovalDecision], Outcome]:
    outcome = await parley.outcome(pending_id)
    decisions = decisions_of(requests[:MAX_APPROVALS], outcome)
    result = await agent.run(message_history=messages, deferred_tool_results=_results_of(requests, decisions))
    if store is not None:
        store.remove(pending_id)
    return result, decisions, outcome


async def _drive(
    parley: AsyncParley,
    session_id: str,
    agent: Agent[Any, Any],
    store: RunStateStore | None,
    run: PydanticAiRun,
    on_asked: Callable[[str], None] | None,
    expires_in_seconds: int | None,
) -> PydanticAiRun:
    while isinstance(run.result.output, DeferredToolRequests) and run.result.output.approvals:
        requests = _requests_of(run.result.output)
        asked = requests[:MAX_APPROVALS]
        messages = run.result.all_messages()
        handle = await parley.ask(
            session_id=session_id,
            questions=[approval_question(request, index) for index, request in enumerate(asked)],
            context="A Pydantic AI agent wants to call tools that need your approval.",
            expires_in_seconds=expires_in_seconds,
            action=action_of(asked),
        )
        if store is not None:
            store.save(handle.pending_id, _stored(messages, requests))
        if on_asked is not None:
            on_asked(handle.pending_id)
        run.result, decisions, outcome = await _answered(parley, agent, store, handle.pending_id, messages, requests)
        run.decisions.extend(decisions)
        run.outcomes.append(outcome)
    return run


async def run_with_parley(
    parley: AsyncParley,
    *,
    session_id: str,
    agent: Agent[Any, Any],
    prompt: str,
    store: RunStateStore | None = None,
    on_asked: Callable[[str], None] | None = None,
    expires_in_seconds: int | None = None,
) -> PydanticAiRun:
    """Runs the agent (its ``output_type`` must include ``DeferredToolRequests``); while the run ends
    on tool calls that require approval, asks them as one bundle whose action is the call, answers
    them back as ``DeferredToolResults`` and runs on."""
    result = await agent.run(prompt)
    return await _drive(parley, session_id, agent, store, PydanticAiRun(result), on_asked, expires_in_seconds)


async def resume_stored_runs(
    parley: AsyncParley,
    *,
    session_id: str,
    agent: Agent[Any, Any],
    store: RunStateStore,
    on_asked: Callable[[str], None] | None = None,
    expires_in_seconds: int | None = None,
) -> list[PydanticAiRun]:
    """After a restart: each stored run's messages, waited on by pending id (never asked again), answered back and run on."""
    runs: list[PydanticAiRun] = []
    for pending_id, text in store.stored():
        messages, requests = _restored(text)
        if on_asked is not None:
            on_asked(pending_id)
        result, decisions, outcome = await _answered(parley, agent, store, pending_id, messages, requests)
        run = PydanticAiRun(result, decisions, [outcome])
        runs.append(await _drive(parley, session_id, agent, store, run, on_asked, expires_in_seconds))
    return runs


def _stored(messages: list[ModelMessage], requests: Sequence[ApprovalRequest]) -> str:
    """The run's messages and the calls it is paused on, as JSON."""
    calls = [{"id": request.id, "tool_name": request.tool_name, "arguments": request.arguments} for request in requests]
    return json.dumps({"messages": json.loads(ModelMessagesTypeAdapter.dump_json(messages)), "approvals": calls})


def _restored(text: str) -> tuple[list[ModelMessage], list[ApprovalRequest]]:
    stored = json.loads(text)
    messages = ModelMessagesTypeAdapter.validate_python(stored["messages"])
    requests = [ApprovalRequest(id=call["id"], tool_name=call["tool_name"], arguments=call["arguments"]) for call in stored["approvals"]]
    return messages, requests
