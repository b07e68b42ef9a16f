"""Answering a bundle the way each surface's users do: REST, GraphQL, and MCP (the MCP SDK's client on /mcp)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

Surface = Literal["rest", "graphql", "mcp"]
SURFACES: list[Surface] = ["rest", "graphql", "mcp"]

RESOLUTION = "claimed status response { answers { questionId selectedOptions customText } rejected rejectReason } receipt"
ANSWER = f"mutation($pendingId: String!, $answers: [AnswerInput!]!) {{ answerQuestion(pendingId: $pendingId, answers: $answers) {{ {RESOLUTION} }} }}"
REJECT = f"mutation($pendingId: String!, $reason: String) {{ rejectQuestion(pendingId: $pendingId, reason: $reason) {{ {RESOLUTION} }} }}"


async def _mcp_call(base_url: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with streamable_http_client(f"{base_url}/mcp") as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        result: Any = await session.call_tool("answer_question_kandev", arguments)
        text = next(block.text for block in result.content if block.type == "text")
        if result.is_error:
            raise AssertionError(f"answer_question_kandev failed: {text}")
        envelope: dict[str, Any] = json.loads(text)
        return envelope


def submit(surface: Surface, base_url: str, pending_id: str, *, answers: list[dict[str, Any]] | None = None, reason: str | None = None) -> bool:
    """Answers (or, given a reason, rejects) on ``surface``; whether this answer won."""
    if surface == "rest":
        body: dict[str, Any] = {"answers": answers} if answers is not None else {"rejected": True, "reject_reason": reason}
        response = httpx.post(f"{base_url}/api/v1/clarification/{pending_id}/respond", json=body, timeout=30)
        response.raise_for_status()
        return bool(response.json()["claimed"])
    if surface == "graphql":
        if answers is not None:
            variables: dict[str, Any] = {
                "pendingId": pending_id,
                "answers": [{"questionId": a["question_id"], "selectedOptions": a["selected_options"], "customText": a.get("custom_text", "")} for a in answers],
            }
            query = ANSWER
        else:
            variables, query = {"pendingId": pending_id, "reason": reason}, REJECT
        reply = httpx.post(f"{base_url}/graphql", json={"query": query, "variables": variables}, timeout=30).json()
        if reply.get("errors"):
            raise AssertionError(f"GraphQL failed: {reply['errors']}")
        resolution = reply["data"].get("answerQuestion") or reply["data"]["rejectQuestion"]
        return bool(resolution["claimed"])
    arguments: dict[str, Any] = {"pending_id": pending_id, "answers": answers} if answers is not None else {"pending_id": pending_id, "rejected": True, "reason": reason}
    return bool(asyncio.run(_mcp_call(base_url, arguments))["claimed"])
