"""What every adapter shares: tool calls awaiting approval as approve / deny questions, the
decisions a bundle's outcome stands for, and an outcome as the JSON handed back to a graph."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .outcome import Outcome
from .receipts import Action

MAX_QUESTIONS = 4
"""A bundle holds at most this many questions, so at most this many approvals are asked together."""
PROMPT_LIMIT = 4000
APPROVE = "approve"
DENY = "deny"


@dataclass(frozen=True)
class ApprovalRequest:
    """One tool call awaiting a person's approval, whatever framework paused on it."""

    id: str
    tool_name: str
    arguments: Any


@dataclass(frozen=True)
class ApprovalDecision:
    id: str
    tool_name: str
    approved: bool
    reason: str
    """The person's note (an answer's text, or the rejection's reason)."""

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "tool_name": self.tool_name, "approved": self.approved, "reason": self.reason}


def approval_question_id(index: int) -> str:
    return f"approval_{index + 1}"


def _arguments_text(arguments: Any) -> str:
    if isinstance(arguments, str):
        return arguments
    try:
        return json.dumps(arguments, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(arguments)


def approval_question(request: ApprovalRequest, index: int) -> dict[str, Any]:
    """The approve / deny question showing the tool's name and its arguments (trimmed to the prompt's limit)."""
    head = f"The agent wants to call the tool `{request.tool_name}` with these arguments:\n\n"
    tail = "\n\nApprove this call?"
    arguments = _arguments_text(request.arguments)
    room = PROMPT_LIMIT - len(head) - len(tail)
    if len(arguments) > room:
        arguments = arguments[: room - 20] + "\n… (truncated)"
    return {
        "id": approval_question_id(index),
        "title": f"Approve {request.tool_name}?"[:500],
        "prompt": f"{head}{arguments}{tail}",
        "options": [
            {"option_id": APPROVE, "label": "Approve", "description": f"Run {request.tool_name} with these arguments"[:1000]},
            {"option_id": DENY, "label": "Deny", "description": "Do not run it; the agent is told it was denied"},
        ],
    }


def decisions_of(requests: Sequence[ApprovalRequest], outcome: Outcome) -> list[ApprovalDecision]:
    """An answer approves each call whose question chose "approve"; a rejection, or the bundle going
    away unanswered, denies every call — an agent never runs a tool nobody approved."""
    decisions: list[ApprovalDecision] = []
    for index, request in enumerate(requests):
        if outcome.status == "answered":
            answer = next((candidate for candidate in outcome.answers if candidate.question_id == approval_question_id(index)), None)
            approved = answer is not None and APPROVE in answer.selected_options
            decisions.append(ApprovalDecision(request.id, request.tool_name, approved, answer.custom_text if answer else ""))
        else:
            reason = outcome.reason if outcome.status == "rejected" else f"the approval request was {outcome.status} before anyone answered"
            decisions.append(ApprovalDecision(request.id, request.tool_name, False, reason))
    return decisions


def action_of(requests: Sequence[ApprovalRequest]) -> Action:
    """The bundle's action, so the receipt binds what was approved: the one call's name and arguments,
    or, for several calls asked together, ``tool_calls`` with each call's id, name and arguments."""
    if len(requests) == 1:
        only = requests[0]
        return {"name": only.tool_name, "arguments": only.arguments if isinstance(only.arguments, dict) else {"input": only.arguments}}
    calls = [{"id": request.id, "name": request.tool_name, "arguments": request.arguments} for request in requests]
    return {"name": "tool_calls", "arguments": {"calls": calls}}


def _labels_of(questions: Sequence[Mapping[str, Any]], index: int, question_id: str, selected: Sequence[str]) -> list[str]:
    question = next((candidate for candidate in questions if candidate.get("id") == question_id), None)
    if question is None and index < len(questions):
        question = questions[index]
    options: Sequence[Mapping[str, Any]] = question.get("options", []) if question else []
    labels: list[str] = []
    for option_id in selected:
        by_id = next((option for option in options if option.get("option_id") == option_id), None)
        generated = re.search(r"_opt(\d+)$", option_id)
        position = int(generated.group(1)) - 1 if generated else -1
        by_position = options[position] if 0 <= position < len(options) else None
        chosen = by_id or by_position
        labels.append(str(chosen["label"]) if chosen else option_id)
    return labels


def human_reply(questions: Sequence[Mapping[str, Any]], outcome: Outcome) -> dict[str, Any]:
    """A bundle's outcome in the JSON shape handed back to a model or a graph."""
    if outcome.status == "answered":
        answers = [
            {
                "question_id": answer.question_id,
                "selected_options": list(answer.selected_options),
                "selected_labels": _labels_of(questions, index, answer.question_id, answer.selected_options),
                "custom_text": answer.custom_text,
            }
            for index, answer in enumerate(outcome.answers)
        ]
        return {"status": "answered", "pending_id": outcome.pending_id, "answers": answers}
    if outcome.status == "rejected":
        return {"status": "rejected", "pending_id": outcome.pending_id, "reason": outcome.reason}
    return {"status": outcome.status, "pending_id": outcome.pending_id}
