"""Checking a Parley receipt offline, against the server's published keys (docs/receipts.md)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

import jwt
from jwt import PyJWK

__all__ = [
    "Action",
    "ReceiptExpectation",
    "ReceiptVerdict",
    "action_digest",
    "answers_digest",
    "canonical_json",
    "verify_receipt",
]

ReceiptInvalidReason = Literal["malformed", "unknown_key", "bad_signature", "expired", "action_mismatch", "expectation_mismatch"]


class Action(TypedDict):
    """What an answer authorizes: its digest is signed into the receipt."""

    name: str
    arguments: dict[str, Any]


class ReceiptIdentity(TypedDict):
    kind: Literal["user", "agent", "admin", "synthetic"]
    id: str | None


class ReceiptExpectation(TypedDict, total=False):
    """What the executor requires the receipt to say; each field given must hold. ``selections``:
    for each question named, exactly these option ids were chosen (in any order)."""

    pending_id: str
    outcome: Literal["answered", "rejected"]
    selections: dict[str, list[str]]
    asked_by: ReceiptIdentity


@dataclass(frozen=True)
class ReceiptVerdict:
    valid: bool
    claims: dict[str, Any] = field(default_factory=dict)
    reason: ReceiptInvalidReason | None = None
    mismatch: list[str] = field(default_factory=list)


def _number(value: float) -> str:
    # RFC 8785 writes numbers as ECMAScript does: integral values without a fraction.
    if not math.isfinite(value):
        raise ValueError("JSON has no NaN or infinity")
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def canonical_json(value: Any) -> str:
    """The RFC 8785 (JCS) canonical form: keys sorted by UTF-16 code units, no whitespace."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        keys = sorted(value.keys(), key=lambda key: str(key).encode("utf-16-be"))
        return "{" + ",".join(f"{json.dumps(str(key), ensure_ascii=False)}:{canonical_json(value[key])}" for key in keys) + "}"
    if isinstance(value, Sequence):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    raise TypeError(f"{type(value).__name__} is not JSON")


def _sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def action_digest(action: Action) -> str:
    """SHA-256 (hex) over the canonical JSON of ``{name, arguments}``, as Parley signs it."""
    return _sha256_hex(canonical_json({"name": action["name"], "arguments": action["arguments"]}))


def answers_digest(answers: Sequence[Mapping[str, Any]], rejected: bool) -> str:
    """SHA-256 (hex) over the canonical JSON of ``{answers, rejected}``, as Parley signs it."""
    return _sha256_hex(canonical_json({"answers": list(answers), "rejected": rejected}))


def unmet_expectations(claims: Mapping[str, Any], expectation: ReceiptExpectation) -> list[str]:
    """The expectation's fields the claims do not satisfy, named as the server names them."""
    unmet: list[str] = []
    if "pending_id" in expectation and claims.get("sub") != expectation["pending_id"]:
        unmet.append("pending_id")
    if "outcome" in expectation and claims.get("outcome") != expectation["outcome"]:
        unmet.append("outcome")
    selections = claims.get("selections") or {}
    for question_id, options in expectation.get("selections", {}).items():
        chosen = selections.get(question_id)
        if not isinstance(chosen, list) or set(chosen) != set(options) or len(set(chosen)) != len(chosen):
            unmet.append(f"selections.{question_id}")
    if "asked_by" in expectation:
        asker = claims.get("asked_by") or {}
        wanted = expectation["asked_by"]
        if asker.get("kind") != wanted["kind"] or asker.get("id") != wanted["id"]:
            unmet.append("asked_by")
    return unmet


def verify_receipt(
    receipt: str,
    jwks: Mapping[str, Any],
    *,
    action: Action | None = None,
    expect: ReceiptExpectation | None = None,
    issuer: str | None = None,
) -> ReceiptVerdict:
    """Checks a receipt offline against a JWKS (``GET /.well-known/jwks.json``): the Ed25519
    signature, the ``typ``, the expiry, that it was signed over ``action`` (when given) and that it
    says what ``expect`` requires. Offline it cannot tell a receipt whose answer was rolled back, nor
    one already spent: redeem it (``redeem_receipt``) before acting."""
    try:
        header = jwt.get_unverified_header(receipt)
    except jwt.PyJWTError:
        return ReceiptVerdict(False, reason="malformed")
    kid = header.get("kid")
    if header.get("alg") != "EdDSA" or not isinstance(kid, str) or header.get("typ") != "parley-receipt+jwt":
        return ReceiptVerdict(False, reason="malformed")
    keys = [key for key in jwks.get("keys", []) if isinstance(key, Mapping) and key.get("kid") == kid]
    if not keys:
        return ReceiptVerdict(False, reason="unknown_key")
    try:
        claims: dict[str, Any] = jwt.decode(
            receipt,
            PyJWK(dict(keys[0])).key,
            algorithms=["EdDSA"],
            issuer=issuer,
            options={"require": ["exp", "iat", "sub"], "verify_aud": False, "verify_iss": issuer is not None},
        )
    except jwt.InvalidSignatureError:
        return ReceiptVerdict(False, reason="bad_signature")
    except jwt.ExpiredSignatureError:
        return ReceiptVerdict(False, reason="expired")
    except jwt.PyJWTError:
        return ReceiptVerdict(False, reason="malformed")
    if action is not None and claims.get("action_digest") != action_digest(action):
        return ReceiptVerdict(False, claims=claims, reason="action_mismatch")
    unmet = [] if expect is None else unmet_expectations(claims, expect)
    if unmet:
        return ReceiptVerdict(False, claims=claims, reason="expectation_mismatch", mismatch=unmet)
    return ReceiptVerdict(True, claims=claims)
