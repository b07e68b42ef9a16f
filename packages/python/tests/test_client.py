"""The client against the real server: every outcome, one winner, the pending pages, typed errors,
resume with its ledger, receipts verified offline, and wait() across a kill -9 of the server."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from conftest import QUESTIONS, ServerProcess

from parley import (
    Action,
    AsyncParley,
    Backoff,
    FileResumeLedger,
    LedgerEntry,
    OpenedSession,
    Outcome,
    Parley,
    ParleyAbortedError,
    ParleyAlreadyResumedError,
    ParleyNotFoundError,
    ParleyUnreachableError,
    ParleyValidationError,
    QuestionDoc,
    action_digest,
)

DEPLOY: Action = {"name": "deploy", "arguments": {"env": "prod", "replicas": 3}}


def test_an_answer_from_another_client_ends_wait_with_its_answers_and_a_receipt_that_verifies(parley: Parley, session: OpenedSession) -> None:
    handle = parley.ask(session_id=session.session_id, questions=QUESTIONS, context="Choosing the storage", action=DEPLOY, expires_in_seconds=3600)
    with Parley(parley.url) as person:
        resolution = person.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["pg"], "custom_text": "the usual"}])
    assert resolution.claimed
    outcome = handle.wait(timeout=30)
    assert outcome.status == "answered"
    assert [(answer.question_id, answer.selected_options, answer.custom_text) for answer in outcome.answers] == [("db", ["pg"], "the usual")]
    assert outcome.receipt == resolution.receipt
    assert outcome.receipt is not None
    expect = {"pending_id": handle.pending_id, "outcome": "answered", "selections": {"db": ["pg"]}, "asked_by": {"kind": "synthetic", "id": None}}
    verdict = parley.verify_receipt(outcome.receipt, action=DEPLOY, expect=expect)  # type: ignore[arg-type]
    assert verdict.valid, verdict
    assert verdict.claims["action_digest"] == action_digest({"name": "deploy", "arguments": {"replicas": 3, "env": "prod"}})
    assert parley.verify_receipt(outcome.receipt, action={"name": "deploy", "arguments": {"env": "staging", "replicas": 3}}).reason == "action_mismatch"
    mismatch = parley.verify_receipt(outcome.receipt, expect={"selections": {"db": ["sqlite"]}})
    assert (mismatch.reason, mismatch.mismatch) == ("expectation_mismatch", ["selections.db"])
    header, payload, signature = outcome.receipt.split(".")
    assert parley.verify_receipt(f"{header}.{payload}.{signature[:-4]}AAAA").reason == "bad_signature"
    assert parley.verify_receipt("not a receipt").reason == "malformed"
    # Spent once, by the identity that asked (with auth disabled, the synthetic identity).
    assert parley.redeem_receipt(outcome.receipt, action=DEPLOY)["redeemed"] is True
    assert parley.redeem_receipt(outcome.receipt, action=DEPLOY) == {"redeemed": False, "reason": "already_redeemed"}


def test_exactly_one_answer_wins_and_the_loser_is_told_the_winners_answer(parley: Parley, session: OpenedSession) -> None:
    handle = parley.ask(session_id=session.session_id, questions=[QuestionDoc.model_validate(QUESTIONS[0])])
    first = parley.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["pg"]}])
    second = parley.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["sqlite"]}])
    assert (first.claimed, second.claimed) == (True, False)
    assert second.answers[0].selected_options == ["pg"]
    assert second.receipt == first.receipt


def test_the_async_client_reports_a_rejection_with_its_reason(server: ServerProcess, session: OpenedSession) -> None:
    async def scenario() -> Outcome:
        async with AsyncParley(server.url) as parley:
            handle = await parley.ask(session_id=session.session_id, questions=QUESTIONS)
            waiting = asyncio.ensure_future(handle.wait(timeout=30))
            await asyncio.sleep(0.3)
            assert not waiting.done()
            await parley.respond(handle.pending_id, reject=True, reason="not this quarter")
            return await waiting

    outcome = asyncio.run(scenario())
    assert (outcome.status, outcome.reason) == ("rejected", "not this quarter")
    assert outcome.receipt is not None


def test_an_unanswered_bundle_expires_and_a_cancelled_one_is_cancelled(parley: Parley, session: OpenedSession) -> None:
    expiring = parley.ask(session_id=session.session_id, questions=QUESTIONS, expires_in_seconds=1)
    with pytest.raises(ParleyAbortedError):
        expiring.wait(timeout=0.2)
    assert expiring.wait(timeout=30).status == "expired"
    cancelled = parley.ask(session_id=session.session_id, questions=[{**QUESTIONS[0], "prompt": "Which database, again?"}])
    cancelled.cancel()
    outcome = cancelled.wait(timeout=30)
    assert (outcome.status, outcome.receipt) == ("cancelled", None)


def test_a_new_turn_supersedes_the_bundle(parley: Parley, session: OpenedSession) -> None:
    handle = parley.ask(session_id=session.session_id, questions=QUESTIONS)
    httpx.post(f"{parley.url}/api/v1/sessions/{session.session_id}/turns", timeout=10).raise_for_status()
    assert handle.wait(timeout=30).status == "superseded"


def test_pending_walks_every_keyset_page_oldest_first(parley: Parley, session: OpenedSession) -> None:
    asked = [parley.ask(session_id=session.session_id, questions=[{**QUESTIONS[0], "prompt": f"Which database for service {n}?"}]).pending_id for n in range(5)]
    listed = [bundle.pending_id for bundle in parley.pending(workspace_id=session.workspace_id, page_size=2)]
    assert listed == asked


def test_errors_are_typed_and_carry_the_servers_code(parley: Parley, session: OpenedSession) -> None:
    with pytest.raises(ParleyNotFoundError) as missing:
        parley.get("00000000-0000-4000-8000-000000000000")
    assert (missing.value.code, missing.value.status) == ("NOT_FOUND", 404)
    with pytest.raises(ParleyValidationError) as refused:
        parley.ask(session_id=session.session_id, questions=[QUESTIONS[0], QUESTIONS[0]])
    assert (refused.value.code, refused.value.status) == ("VALIDATION_ERROR", 400)
    with pytest.raises(ParleyNotFoundError) as unknown_session:
        parley.ask(session_id="no-such-session", questions=QUESTIONS)
    assert unknown_session.value.code == "NOT_FOUND"
    # What the OpenAPI document's models refuse is refused before anything is sent.
    with pytest.raises(ParleyValidationError) as invalid:
        parley.ask(session_id=session.session_id, questions=QUESTIONS, expires_in_seconds=0)
    assert (invalid.value.code, invalid.value.status) == ("VALIDATION_ERROR", None)
    assert "expires_in_seconds" in str(invalid.value)
    with Parley("http://127.0.0.1:9", attempts=2, backoff=Backoff(initial_seconds=0.01, max_seconds=0.02)) as nowhere, pytest.raises(ParleyUnreachableError) as unreachable:
        nowhere.get("anything")
    assert unreachable.value.code == "UNREACHABLE"


def test_resume_hands_an_answer_over_once_per_ledger_across_processes(parley: Parley, session: OpenedSession, tmp_path: Path) -> None:
    handle = parley.ask(session_id=session.session_id, questions=QUESTIONS)
    parley.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["sqlite"]}])
    with Parley(parley.url, ledger=FileResumeLedger(tmp_path)) as agent:
        resumed = agent.resume(handle.pending_id, timeout=30)
        assert resumed.status == "answered"
        assert resumed.handoff is not None
        entry = agent.ledger.get(handle.pending_id)
        assert entry is not None and entry.handoff_key == resumed.handoff.idempotency_key
        # A hand-off re-sent under the same Idempotency-Key is not taken twice.
        assert not FileResumeLedger(tmp_path).claim(LedgerEntry("another-bundle", entry.handoff_key, entry.at))
    with Parley(parley.url, ledger=FileResumeLedger(tmp_path)) as restarted, pytest.raises(ParleyAlreadyResumedError):
        restarted.resume(handle.pending_id, timeout=30)


def test_wait_keeps_waiting_by_pending_id_across_a_kill_9_of_its_server(server: ServerProcess, parley: Parley, session: OpenedSession) -> None:
    own = ServerProcess(server.database_url)
    own.start()
    try:
        with Parley(own.url, backoff=Backoff(initial_seconds=0.1, max_seconds=0.5)) as agent:
            handle = agent.ask(session_id=session.session_id, questions=QUESTIONS)
            outcomes: list[Outcome] = []
            waiter = threading.Thread(target=lambda: outcomes.append(handle.wait(timeout=90)))
            waiter.start()
            time.sleep(0.5)
            own.kill()
            time.sleep(1)
            # Answered on the other server (the same database) while this one is dead.
            assert parley.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["pg"]}]).claimed
            time.sleep(1)
            assert outcomes == [] and waiter.is_alive()
            own.start()
            waiter.join(timeout=60)
            assert [outcome.status for outcome in outcomes] == ["answered"]
            assert outcomes[0].answers[0].selected_options == ["pg"]
        # Never asked twice: the session holds the one bundle.
        messages = httpx.get(f"{server.url}/api/v1/sessions/{session.session_id}/messages", timeout=10).json()["messages"]
        assert [message["metadata"]["pending_id"] for message in messages if message["type"] == "clarification_request"] == [handle.pending_id]
    finally:
        own.stop()


class FlakyFront(ThreadingHTTPServer):
    """A loopback front for the server whose first waits fail as an overloaded or recovering
    deployment fails them — two 503s, then a 429 with ``Retry-After: 1`` — and that then passes every
    request through."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.refusals: list[int] = [503, 503, 429]
        self.refused: list[tuple[int, float]] = []
        super().__init__(("127.0.0.1", 0), _FlakyHandler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _FlakyHandler(BaseHTTPRequestHandler):
    server: FlakyFront

    def log_message(self, format: str, *args: object) -> None:
        return

    def _reply(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.endswith("/wait") and self.server.refusals:
            status = self.server.refusals.pop(0)
            self.server.refused.append((status, time.monotonic()))
            code = "UNAVAILABLE" if status == 503 else "RATE_LIMITED"
            body = json.dumps({"error": "try again later", "code": code}).encode()
            self._reply(status, body, {"content-type": "application/json", **({"retry-after": "1"} if status == 429 else {})})
            return
        upstream = httpx.get(f"{self.server.upstream}{self.path}", timeout=120)
        self._reply(upstream.status_code, upstream.content, {"content-type": upstream.headers.get("content-type", "application/json")})


def test_wait_backs_off_through_503s_and_a_429_honouring_its_retry_after(parley: Parley, session: OpenedSession) -> None:
    front = FlakyFront(parley.url)
    try:
        handle = parley.ask(session_id=session.session_id, questions=QUESTIONS)
        parley.respond(handle.pending_id, [{"question_id": "db", "selected_options": ["sqlite"]}])
        with Parley(front.url, backoff=Backoff(initial_seconds=0.05, max_seconds=0.2)) as agent:
            started = time.monotonic()
            outcome = agent.bundle(handle.pending_id).wait(timeout=30)
            finished = time.monotonic()
        assert outcome.status == "answered" and outcome.answers[0].selected_options == ["sqlite"]
        assert [status for status, _ in front.refused] == [503, 503, 429]
        # The 429 said Retry-After: 1, longer than any backoff here: the next try came after it.
        assert finished - front.refused[-1][1] >= 1.0
        assert finished - started < 10
    finally:
        front.shutdown()
