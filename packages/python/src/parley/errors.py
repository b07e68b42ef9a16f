"""Typed errors: every error the client raises is a ParleyError carrying the server's ``code``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
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
    "error_from_response",
    "is_transient",
]


class ParleyError(Exception):
    """Base of every error the client raises; ``code`` is the server's error code when it sent one,
    else the client's own: ``UNREACHABLE``, ``ABORTED``, ``ALREADY_RESUMED``, ``UNEXPECTED_RESPONSE``."""

    def __init__(self, code: str, message: str, status: int | None = None, request_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.request_id = request_id


class ParleyValidationError(ParleyError):
    """400, 413 or 415: the message names the field; nothing was changed."""


class ParleyAuthError(ParleyError):
    """401 or 403: no valid credential, or one that may not do this."""


class ParleyNotFoundError(ParleyError):
    """404: unknown, or not the caller's (the server does not tell the two apart)."""


class ParleyConflictError(ParleyError):
    """409: the bundle is no longer active (superseded, expired, cancelled, the session ended)."""


class ParleyRateLimitedError(ParleyError):
    """429: ``retry_after_seconds`` says when to try again."""

    def __init__(self, code: str, message: str, status: int, request_id: str | None, retry_after_seconds: float | None) -> None:
        super().__init__(code, message, status, request_id)
        self.retry_after_seconds = retry_after_seconds


class ParleyServerError(ParleyError):
    """5xx: the server (or its database) is unavailable or failed; retrying later may succeed."""


class ParleyUnreachableError(ParleyError):
    """The server could not be reached at all (refused, reset, name resolution): ``__cause__`` is the network error."""

    def __init__(self, url: str, cause: BaseException) -> None:
        super().__init__("UNREACHABLE", f"Parley is not reachable at {url}: {type(cause).__name__}: {cause}")


class ParleyAbortedError(ParleyError):
    """The wait was given up (its deadline passed, or its task was cancelled)."""

    def __init__(self) -> None:
        super().__init__("ABORTED", "the operation was aborted")


class ParleyAlreadyResumedError(ParleyError):
    """``resume()`` of a bundle whose answer this agent's ledger already handed over."""

    def __init__(self, pending_id: str) -> None:
        super().__init__("ALREADY_RESUMED", f"the answer of {pending_id} was already handed to this agent (its resume ledger says so)")
        self.pending_id = pending_id


def _retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


def error_from_response(status: int, body: Any, headers: Mapping[str, str]) -> ParleyError:
    """The typed error of a non-2xx response, by status, carrying the body's ``code`` and ``error``."""
    known = isinstance(body, dict) and isinstance(body.get("error"), str)
    message = str(body["error"]) if known else f"unexpected {status} response"
    code = str(body.get("code", "UNEXPECTED_RESPONSE")) if known else "UNEXPECTED_RESPONSE"
    body_request_id = body.get("request_id") if known else None
    request_id = body_request_id if isinstance(body_request_id, str) else headers.get("x-request-id")
    if status in (400, 413, 415):
        return ParleyValidationError(code, message, status, request_id)
    if status in (401, 403):
        return ParleyAuthError(code, message, status, request_id)
    if status == 404:
        return ParleyNotFoundError(code, message, status, request_id)
    if status == 409:
        return ParleyConflictError(code, message, status, request_id)
    if status == 429:
        return ParleyRateLimitedError(code, message, status, request_id, _retry_after_seconds(headers))
    if status >= 500:
        return ParleyServerError(code, message, status, request_id)
    return ParleyError(code, message, status, request_id)


def is_transient(error: BaseException) -> bool:
    """Whether the same request may succeed later: unreachable, 5xx, 429. 4xx answers are final."""
    return isinstance(error, (ParleyUnreachableError, ParleyServerError, ParleyRateLimitedError))
