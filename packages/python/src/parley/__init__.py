"""parley: the typed Python client of Parley — agents ask people structured questions and get
exactly one answer back, from whichever surface answers first."""

from ._async_client import AsyncBundleHandle, AsyncParley, OpenedSession, Resolution
from ._generated.models import BundleDoc, OptionDoc, PendingBundleDoc, QuestionDoc
from ._sync_client import BundleHandle, Parley
from .backoff import Backoff
from .errors import (
    ParleyAbortedError,
    ParleyAlreadyResumedError,
    ParleyAuthError,
    ParleyConflictError,
    ParleyError,
    ParleyNotFoundError,
    ParleyRateLimitedError,
    ParleyServerError,
    ParleyUnreachableError,
    ParleyValidationError,
)
from .ledger import FileResumeLedger, LedgerEntry, MemoryResumeLedger, ResumeLedger
from .outcome import Answer, Handoff, Outcome, OutcomeStatus
from .receipts import Action, ReceiptExpectation, ReceiptVerdict, action_digest, answers_digest, verify_receipt

__all__ = [
    "Action",
    "Answer",
    "AsyncBundleHandle",
    "AsyncParley",
    "Backoff",
    "BundleDoc",
    "BundleHandle",
    "FileResumeLedger",
    "Handoff",
    "LedgerEntry",
    "MemoryResumeLedger",
    "OpenedSession",
    "OptionDoc",
    "Outcome",
    "OutcomeStatus",
    "Parley",
    "ParleyAbortedError",
    "ParleyAlreadyResumedError",
    "ParleyAuthError",
    "ParleyConflictError",
    "ParleyError",
    "ParleyNotFoundError",
    "ParleyRateLimitedError",
    "ParleyServerError",
    "ParleyUnreachableError",
    "ParleyValidationError",
    "PendingBundleDoc",
    "QuestionDoc",
    "ReceiptExpectation",
    "ReceiptVerdict",
    "Resolution",
    "ResumeLedger",
    "action_digest",
    "answers_digest",
    "verify_receipt",
]
