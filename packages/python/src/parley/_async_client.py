"""AsyncParley: the asyncio client. The sync ``Parley`` runs this one on a loop of its own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from ._generated.models import (
    AnswerDoc,
    BundleDoc,
    CreateClarificationDto,
    PendingBundleDoc,
    PendingPageDoc,
    QuestionDoc,
    RespondDto,
    RespondResultDoc,
)
from ._transport import LONG_POLL_TIMEOUT, Transport
from .backoff import Backoff
from .errors import (
    ParleyAbortedError,
    ParleyAlreadyResumedError,
    ParleyConflictError,
    ParleyServerError,
    ParleyValidationError,
    is_transient,
)
from .ledger import LedgerEntry, MemoryResumeLedger, ResumeLedger
from .outcome import Answer, Handoff, Outcome, outcome_of_bundle, outcome_of_wait
from .receipts import Action, ReceiptExpectation, ReceiptVerdict, verify_receipt

DEFAULT_URL = "http://127.0.0.1:3000"
T = TypeVar("T")

QuestionInput = Mapping[str, Any] | QuestionDoc
AnswerInput = Mapping[str, Any] | AnswerDoc


@dataclass(frozen=True)
class Resolution:
    """The result of answering: whether this call won, and the one response that did."""

    claimed: bool
    status: str
    answers: list[Answer]
    rejected: bool
    reject_reason: str
    receipt: str | None
    vote: dict[str, Any] | None = None


@dataclass(frozen=True)
class OpenedSession:
    workspace_id: str
    task_id: str
    session_id: str
    agent_token: str
    turn_id: str


class AsyncBundleHandle:
    """A bundle asked (or asked earlier, by this process or one before it): wait for its one outcome."""

    def __init__(self, parley: AsyncParley, pending_id: str) -> None:
        self._parley = parley
        self.pending_id = pending_id

    async def wait(self, timeout: float | None = None) -> Outcome:
        return await self._parley.outcome(self.pending_id, timeout=timeout)

    async def resume(self, timeout: float | None = None) -> Outcome:
        return await self._parley.resume(self.pending_id, timeout=timeout)

    async def cancel(self) -> None:
        await self._parley.cancel(self.pending_id)


def _answer_body(answer: AnswerInput) -> dict[str, Any]:
    raw = answer.model_dump() if isinstance(answer, AnswerDoc) else dict(answer)
    return {"question_id": raw["question_id"], "selected_options": list(raw.get("selected_options") or []), "custom_text": raw.get("custom_text") or ""}


Model = TypeVar("Model", bound=BaseModel)


def _validated(model: type[Model], body: dict[str, Any]) -> Model:
    """The request as the OpenAPI document's model, or ParleyValidationError naming the field (nothing is sent)."""
    try:
        return model.model_validate(body)
    except ValidationError as error:
        first = error.errors()[0]
        field_name = ".".join(str(part) for part in first["loc"])
        raise ParleyValidationError("VALIDATION_ERROR", f"{field_name}: {first['msg']}") from error


class AsyncParley:
    """The typed asyncio client of a Parley server: ask bundles, wait for and resume with their one
    answer, answer, list, cancel, verify receipts."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        token: str | None = None,
        *,
        ledger: ResumeLedger | None = None,
        backoff: Backoff | None = None,
        attempts: int = 4,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self.url = url.rstrip("/")
        self.ledger: ResumeLedger = ledger or MemoryResumeLedger()
        self.backoff = backoff or Backoff()
        self.attempts = attempts
        self._transport = Transport(self.url, token, http_client)
        self._jwks: dict[str, Any] | None = None

    async def __aenter__(self) -> AsyncParley:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._transport.close()

    async def _retried(self, call: Callable[[], Awaitable[T]], attempts: int | None = None) -> T:
        """Runs ``call`` while it fails transiently (unreachable, 5xx, 429), with jittered backoff; only
        for calls safe to repeat: asking (the server returns the same pending id for the same pending
        questions), reading, answering (a repeat loses to itself and reports the winner)."""
        tries = attempts or self.attempts
        for attempt in range(tries):
            try:
                return await call()
            except Exception as error:
                if not is_transient(error) or attempt + 1 >= tries:
                    raise
                await asyncio.sleep(self.backoff.delay_after(error, attempt))
        raise AssertionError("unreachable")

    async def ask(
        self,
        *,
        session_id: str,
        questions: Sequence[QuestionInput],
        context: str | None = None,
        action: Action | None = None,
        routing: Mapping[str, Any] | None = None,
        expires_in_seconds: int | None = None,
        task_id: str | None = None,
    ) -> AsyncBundleHandle:
        """Asks a bundle (1–4 questions of 2–6 options) on the session's current turn. Retried while
        the server is unreachable: the same still-pending questions return the same pending id, so a
        retry never asks twice."""
        request = _validated(
            CreateClarificationDto,
            {
                "session_id": session_id,
                "questions": [question.model_dump(exclude_none=True) if isinstance(question, QuestionDoc) else dict(question) for question in questions],
                "context": context,
                "action": action,
                "routing": routing,
                "expires_in_seconds": expires_in_seconds,
                "task_id": task_id,
            },
        )
        body = request.model_dump(mode="json", exclude_none=True)
        if action is not None:
            # The arguments go as given: the digest is computed over exactly what the agent will run.
            body["action"] = {"name": action["name"], "arguments": action["arguments"]}
        asked = await self._retried(lambda: self._transport.send("POST", "/api/v1/clarification/request", json=body))
        return AsyncBundleHandle(self, str(asked["pending_id"]))

    def bundle(self, pending_id: str) -> AsyncBundleHandle:
        return AsyncBundleHandle(self, pending_id)

    async def get(self, pending_id: str, *, attempts: int | None = None) -> BundleDoc:
        """The bundle and where it stands, read from the server's durable rows."""
        body = await self._retried(lambda: self._transport.send("GET", f"/api/v1/clarification/{pending_id}"), attempts)
        return BundleDoc.model_validate(body)

    async def _read_raw(self, pending_id: str) -> dict[str, Any]:
        body: dict[str, Any] = await self._transport.send("GET", f"/api/v1/clarification/{pending_id}")
        return body

    async def _round(self, pending_id: str) -> Outcome | None:
        """One long poll, and when it ends without an answer, one read to learn why; None: wait again."""
        try:
            waited = await self._transport.send("GET", f"/api/v1/clarification/{pending_id}/wait", timeout=LONG_POLL_TIMEOUT)
            return outcome_of_wait(pending_id, waited)
        except ParleyConflictError as error:
            if error.code == "EXPIRED":
                return Outcome("expired", pending_id)
            return outcome_of_bundle(await self._read_raw(pending_id))
        except ParleyServerError as error:
            if error.code != "WAIT_ENDED":
                raise
            return outcome_of_bundle(await self._read_raw(pending_id))

    async def _wait_for_outcome(self, pending_id: str) -> Outcome:
        failures = 0
        while True:
            try:
                outcome = await self._round(pending_id)
                if outcome is not None:
                    return outcome
                failures = 0
            except Exception as error:
                if not is_transient(error):
                    raise
                await asyncio.sleep(self.backoff.delay_after(error, failures))
                failures += 1

    async def outcome(self, pending_id: str, *, timeout: float | None = None) -> Outcome:
        """Waits for the bundle's one outcome by its pending id, as long as it takes: across long-poll
        bounds, server restarts, 503s and 429s (jittered backoff). Never asks again. Only a 4xx or
        ``timeout`` (ParleyAbortedError) ends it. A rejection's reason, which the bundle does not keep,
        is recovered from its audit trail when the wait did not see it live."""
        try:
            outcome = await asyncio.wait_for(self._wait_for_outcome(pending_id), timeout)
        except asyncio.TimeoutError as error:
            raise ParleyAbortedError() from error
        if outcome.status == "rejected" and outcome.reason == "":
            reason = await self._recover_reject_reason(pending_id)
            return Outcome("rejected", pending_id, reason=reason, responded_at=outcome.responded_at, receipt=outcome.receipt)
        return outcome

    async def resume(self, pending_id: str, *, timeout: float | None = None) -> Outcome:
        """For a durable agent, after a restart: waits for the outcome and hands it over exactly once
        per ledger (a second resume, here or in a later process sharing the ledger, raises
        ParleyAlreadyResumedError). An answer the server handed off on a successor turn is recorded
        under that hand-off's Idempotency-Key."""
        if self.ledger.get(pending_id) is not None:
            raise ParleyAlreadyResumedError(pending_id)
        outcome = await self.outcome(pending_id, timeout=timeout)
        handoff = await self._find_handoff(pending_id) if outcome.status == "answered" else None
        entry = LedgerEntry(pending_id, handoff.idempotency_key if handoff else pending_id, datetime.now(timezone.utc).isoformat())
        if not self.ledger.claim(entry):
            raise ParleyAlreadyResumedError(pending_id)
        if handoff is None:
            return outcome
        return Outcome(outcome.status, pending_id, outcome.answers, outcome.reason, outcome.responded_at, outcome.receipt, handoff)

    async def _session_messages(self, session_id: str) -> AsyncIterator[dict[str, Any]]:
        cursor = ""
        while True:
            params: dict[str, Any] = {"limit": 200, **({"cursor": cursor} if cursor else {})}
            page = await self._transport.send("GET", f"/api/v1/sessions/{session_id}/messages", params=params)
            for message in page["messages"]:
                yield message
            cursor = page["next_cursor"]
            if cursor == "":
                return

    async def _find_handoff(self, pending_id: str) -> Handoff | None:
        try:
            bundle = await self._read_raw(pending_id)
            async for message in self._session_messages(str(bundle["session_id"])):
                if message["type"] == "resume_prompt" and message["metadata"].get("resume_of") == pending_id:
                    turn_id = str(message["turn_id"])
                    return Handoff(turn_id=turn_id, idempotency_key=turn_id, prompt=str(message["content"]))
        except Exception:  # noqa: BLE001 — the hand-off is informational; a credential that may not read messages still resumes.
            return None
        return None

    async def _recover_reject_reason(self, pending_id: str) -> str:
        cursor = ""
        try:
            while True:
                params: dict[str, Any] = {"limit": 200, **({"cursor": cursor} if cursor else {})}
                page = await self._transport.send("GET", f"/api/v1/clarification/{pending_id}/audit", params=params)
                for attempt in page["attempts"]:
                    if attempt.get("outcome") == "won" and attempt.get("rejected"):
                        return str(attempt.get("reject_reason") or "")
                cursor = page["next_cursor"]
                if cursor == "":
                    return ""
        except Exception:  # noqa: BLE001 — the audit trail needs a user's credential; an agent token does not see it.
            return ""

    async def find_bundle(self, session_id: str, marker: str) -> str | None:
        """The pending id of the newest bundle of the session whose context contains ``marker``."""
        found: str | None = None
        async for message in self._session_messages(session_id):
            metadata = message["metadata"]
            context = metadata.get("context")
            if message["type"] == "clarification_request" and isinstance(context, str) and marker in context:
                found = str(metadata["pending_id"])
        return found

    async def respond(
        self,
        pending_id: str,
        answers: Sequence[AnswerInput] | None = None,
        *,
        reject: bool = False,
        reason: str = "",
    ) -> Resolution:
        """Answers a bundle (one answer per question), or rejects it (``reject=True, reason=…``).
        Exactly one answer wins on any surface; ``claimed`` says whether this one did."""
        if reject:
            request = _validated(RespondDto, {"rejected": True, "reject_reason": reason})
        else:
            request = _validated(RespondDto, {"answers": [_answer_body(answer) for answer in answers or []]})
        body = request.model_dump(mode="json", exclude_none=True)
        raw = await self._retried(lambda: self._transport.send("POST", f"/api/v1/clarification/{pending_id}/respond", json=body))
        result = RespondResultDoc.model_validate(raw)
        return Resolution(
            claimed=result.claimed,
            status=result.status.value,
            answers=list(result.response.answers),
            rejected=result.response.rejected,
            reject_reason=result.response.reject_reason,
            receipt=result.receipt,
            vote=raw.get("vote"),
        )

    async def cancel(self, pending_id: str) -> None:
        """Cancels a live bundle: its waiters end with ``cancelled``."""
        await self._retried(lambda: self._transport.send("POST", f"/api/v1/clarification/{pending_id}/cancel"))

    async def pending(
        self,
        *,
        workspace_id: str | None = None,
        created_since: datetime | str | None = None,
        page_size: int | None = None,
    ) -> AsyncIterator[PendingBundleDoc]:
        """Every pending bundle the caller may answer, oldest first, page by page (the keyset cursor)."""
        cursor = ""
        while True:
            params: dict[str, Any] = {}
            if workspace_id:
                params["workspace_id"] = workspace_id
            if created_since is not None:
                params["created_since"] = created_since.isoformat() if isinstance(created_since, datetime) else created_since
            if page_size:
                params["limit"] = page_size
            if cursor:
                params["cursor"] = cursor
            page = PendingPageDoc.model_validate(await self._retried(lambda: self._transport.send("GET", "/api/v1/clarification", params=params)))
            for bundle in page.bundles:
                yield bundle
            cursor = page.next_cursor
            if cursor == "":
                return

    async def jwks(self, *, refresh: bool = False) -> dict[str, Any]:
        """The server's published keys (``/.well-known/jwks.json``), fetched once and cached."""
        if self._jwks is None or refresh:
            keys: dict[str, Any] = await self._retried(lambda: self._transport.send("GET", "/.well-known/jwks.json"))
            self._jwks = keys
            return keys
        return self._jwks

    async def verify_receipt(
        self,
        receipt: str,
        *,
        action: Action | None = None,
        expect: ReceiptExpectation | None = None,
        issuer: str | None = None,
    ) -> ReceiptVerdict:
        """Checks a receipt offline against this server's keys (fetched once; again once when the
        receipt names a key not seen yet, as after a rotation)."""
        verdict = verify_receipt(receipt, await self.jwks(), action=action, expect=expect, issuer=issuer)
        if verdict.reason == "unknown_key":
            verdict = verify_receipt(receipt, await self.jwks(refresh=True), action=action, expect=expect, issuer=issuer)
        return verdict

    async def redeem_receipt(self, receipt: str, *, action: Action, expect: ReceiptExpectation | None = None) -> dict[str, Any]:
        """Spends a receipt for the action about to run, once, as the identity that asked. Never retried."""
        body: dict[str, Any] = {"receipt": receipt, "action": dict(action), **({"expect": dict(expect)} if expect else {})}
        redemption: dict[str, Any] = await self._transport.send("POST", "/api/v1/receipts/redeem", json=body)
        return redemption

    async def open_session(self, task_title: str, *, workspace_name: str = "agents") -> OpenedSession:
        """A workspace, a task in it and a RUNNING session with a started turn: what an agent running
        on its own files before it asks. Not retried (each call files new rows)."""
        send = self._transport.send
        workspace = await send("POST", "/api/v1/workspaces", json={"name": workspace_name})
        task = await send("POST", "/api/v1/tasks", json={"title": task_title, "workspace_id": workspace["id"]})
        session = await send("POST", f"/api/v1/tasks/{task['id']}/sessions", json={})
        await self._retried(lambda: send("PATCH", f"/api/v1/sessions/{session['id']}", json={"state": "RUNNING"}))
        turn = await send("POST", f"/api/v1/sessions/{session['id']}/turns")
        return OpenedSession(str(workspace["id"]), str(task["id"]), str(session["id"]), str(session["agent_token"]), str(turn["id"]))
