"""How a bundle ended, as the agent that asked it sees it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ._generated.models import AnswerDoc as Answer

__all__ = ["Answer", "Handoff", "Outcome", "OutcomeStatus", "outcome_of_bundle", "outcome_of_wait"]

OutcomeStatus = Literal["answered", "rejected", "expired", "cancelled", "superseded"]


@dataclass(frozen=True)
class Handoff:
    """The server's resume hand-off of an answer that no live waiter took: the successor turn it
    opened, whose id is the hand-off's ``Idempotency-Key``."""

    turn_id: str
    idempotency_key: str
    prompt: str


@dataclass(frozen=True)
class Outcome:
    """Exactly one per bundle: ``answered`` (``answers``), ``rejected`` (``reason``), or ``expired``,
    ``cancelled``, ``superseded`` (nobody answered). ``receipt`` is the resolution's signed receipt
    for an answer or a rejection."""

    status: OutcomeStatus
    pending_id: str
    answers: list[Answer] = field(default_factory=list)
    reason: str = ""
    responded_at: str = ""
    receipt: str | None = None
    handoff: Handoff | None = None

    @property
    def is_decision(self) -> bool:
        """Whether someone decided (answered or rejected), rather than the bundle going away unanswered."""
        return self.status in ("answered", "rejected")

    def selections(self) -> dict[str, list[str]]:
        """The option ids chosen, per question id."""
        return {answer.question_id: list(answer.selected_options) for answer in self.answers}


def outcome_of_wait(pending_id: str, body: dict[str, Any]) -> Outcome:
    """The outcome a final ``/wait`` reply reports."""
    receipt = body.get("receipt")
    responded_at = str(body.get("responded_at", ""))
    if body.get("rejected"):
        return Outcome("rejected", pending_id, reason=str(body.get("reject_reason", "")), responded_at=responded_at, receipt=receipt)
    answers = [Answer.model_validate(answer) for answer in body.get("answers", [])]
    return Outcome("answered", pending_id, answers=answers, responded_at=responded_at, receipt=receipt)


def outcome_of_bundle(bundle: dict[str, Any]) -> Outcome | None:
    """The outcome a bundle's read reports, or None while it is pending (or its winner is still
    being delivered: not final yet)."""
    pending_id = str(bundle["pending_id"])
    response: dict[str, Any] = bundle.get("response") or {}
    resolved_by: dict[str, Any] = bundle.get("resolved_by") or {}
    responded_at = str(response.get("responded_at") or resolved_by.get("at") or "")
    receipt = bundle.get("receipt")
    status = bundle.get("status")
    if status == "answered":
        answers = [Answer.model_validate(answer) for answer in response.get("answers", [])]
        return Outcome("answered", pending_id, answers=answers, responded_at=responded_at, receipt=receipt)
    if status == "rejected":
        return Outcome("rejected", pending_id, reason=str(response.get("reject_reason", "")), responded_at=responded_at, receipt=receipt)
    if status == "expired":
        return Outcome("expired", pending_id)
    if status == "cancelled":
        return Outcome("cancelled", pending_id)
    if status == "inactive":
        # No longer active, no winner, neither expired nor cancelled: a newer turn superseded it.
        return Outcome("superseded", pending_id)
    return None
