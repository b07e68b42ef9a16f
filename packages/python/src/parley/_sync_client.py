"""Parley: the blocking client. It runs an AsyncParley on an event loop of its own thread, so it
works the same from plain code and from inside a framework that already runs a loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Coroutine, Iterator, Mapping, Sequence
from concurrent.futures import Future
from datetime import datetime
from typing import Any, TypeVar

from ._async_client import DEFAULT_URL, AnswerInput, AsyncParley, OpenedSession, QuestionInput, Resolution
from ._generated.models import BundleDoc, PendingBundleDoc
from .backoff import Backoff
from .ledger import ResumeLedger
from .outcome import Outcome
from .receipts import Action, ReceiptExpectation, ReceiptVerdict

T = TypeVar("T")


class BundleHandle:
    """A bundle asked (or asked earlier, by this process or one before it): wait for its one outcome."""

    def __init__(self, parley: Parley, pending_id: str) -> None:
        self._parley = parley
        self.pending_id = pending_id

    def wait(self, timeout: float | None = None) -> Outcome:
        return self._parley.outcome(self.pending_id, timeout=timeout)

    def resume(self, timeout: float | None = None) -> Outcome:
        return self._parley.resume(self.pending_id, timeout=timeout)

    def cancel(self) -> None:
        self._parley.cancel(self.pending_id)


class Parley:
    """The typed blocking client: the same calls as AsyncParley."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        token: str | None = None,
        *,
        ledger: ResumeLedger | None = None,
        backoff: Backoff | None = None,
        attempts: int = 4,
    ) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="parley-client", daemon=True)
        self._thread.start()
        self.aio = AsyncParley(url, token, ledger=ledger, backoff=backoff, attempts=attempts)
        self.url = self.aio.url
        self.ledger = self.aio.ledger

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        return future.result()

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._run(self.aio.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    def __enter__(self) -> Parley:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def ask(
        self,
        *,
        session_id: str,
        questions: Sequence[QuestionInput],
        context: str | None = None,
        action: Action | None = None,
        routing: Mapping[str, Any] | None = None,
        expires_in_seconds: int | None = None,
        task_id: str | None = None,
    ) -> BundleHandle:
        handle = self._run(
            self.aio.ask(
                session_id=session_id,
                questions=questions,
                context=context,
                action=action,
                routing=routing,
                expires_in_seconds=expires_in_seconds,
                task_id=task_id,
            )
        )
        return BundleHandle(self, handle.pending_id)

    def bundle(self, pending_id: str) -> BundleHandle:
        return BundleHandle(self, pending_id)

    def get(self, pending_id: str) -> BundleDoc:
        return self._run(self.aio.get(pending_id))

    def outcome(self, pending_id: str, *, timeout: float | None = None) -> Outcome:
        return self._run(self.aio.outcome(pending_id, timeout=timeout))

    def resume(self, pending_id: str, *, timeout: float | None = None) -> Outcome:
        return self._run(self.aio.resume(pending_id, timeout=timeout))

    def find_bundle(self, session_id: str, marker: str) -> str | None:
        return self._run(self.aio.find_bundle(session_id, marker))

    def respond(self, pending_id: str, answers: Sequence[AnswerInput] | None = None, *, reject: bool = False, reason: str = "") -> Resolution:
        return self._run(self.aio.respond(pending_id, answers, reject=reject, reason=reason))

    def cancel(self, pending_id: str) -> None:
        self._run(self.aio.cancel(pending_id))

    def pending(
        self,
        *,
        workspace_id: str | None = None,
        created_since: datetime | str | None = None,
        page_size: int | None = None,
    ) -> Iterator[PendingBundleDoc]:
        pages: AsyncIterator[PendingBundleDoc] = self.aio.pending(workspace_id=workspace_id, created_since=created_since, page_size=page_size)
        while True:
            try:
                yield self._run(self._next(pages))
            except StopAsyncIteration:
                return

    @staticmethod
    async def _next(pages: AsyncIterator[PendingBundleDoc]) -> PendingBundleDoc:
        return await pages.__anext__()

    def jwks(self, *, refresh: bool = False) -> dict[str, Any]:
        return self._run(self.aio.jwks(refresh=refresh))

    def verify_receipt(self, receipt: str, *, action: Action | None = None, expect: ReceiptExpectation | None = None, issuer: str | None = None) -> ReceiptVerdict:
        return self._run(self.aio.verify_receipt(receipt, action=action, expect=expect, issuer=issuer))

    def redeem_receipt(self, receipt: str, *, action: Action, expect: ReceiptExpectation | None = None) -> dict[str, Any]:
        return self._run(self.aio.redeem_receipt(receipt, action=action, expect=expect))

    def open_session(self, task_title: str, *, workspace_name: str = "agents") -> OpenedSession:
        return self._run(self.aio.open_session(task_title, workspace_name=workspace_name))
