"""The one place HTTP outcomes become typed errors."""

from __future__ import annotations

from typing import Any

import httpx

from .errors import ParleyUnreachableError, error_from_response

# The long poll holds a request up to the server's WAIT_TIMEOUT_MS; reads allow more than that.
LONG_POLL_TIMEOUT = httpx.Timeout(10.0, read=300.0)
DEFAULT_TIMEOUT = httpx.Timeout(30.0)


class Transport:
    def __init__(self, url: str, token: str | None, client: httpx.AsyncClient | None = None) -> None:
        self.url = url.rstrip("/")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.client = client or httpx.AsyncClient(base_url=self.url, headers=headers, timeout=DEFAULT_TIMEOUT)

    async def send(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        timeout: httpx.Timeout | None = None,
    ) -> Any:
        """One call: its JSON body on 2xx, else the typed error; a network failure is ParleyUnreachableError."""
        try:
            response = await self.client.request(method, path, json=json, params=params, timeout=timeout or DEFAULT_TIMEOUT)
        except httpx.TransportError as error:
            raise ParleyUnreachableError(self.url, error) from error
        try:
            body = response.json() if response.content else None
        except ValueError:
            body = None
        if response.is_success:
            return body
        raise error_from_response(response.status_code, body, response.headers)

    async def close(self) -> None:
        await self.client.aclose()

