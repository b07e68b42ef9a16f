"""How long to wait between attempts: exponential, capped, with jitter."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import ParleyRateLimitedError


@dataclass(frozen=True)
class Backoff:
    """The first delay's ceiling doubles each attempt up to ``max_seconds``; each delay is drawn
    uniformly between half the ceiling and the ceiling (jitter spreads the agents a restarted server
    sees reconnecting at once; the floor keeps a retry from hammering it)."""

    initial_seconds: float = 0.2
    max_seconds: float = 5.0
    draw: Callable[[], float] = field(default=random.random, compare=False)
    """A number in [0, 1): random.random unless a test pins it."""

    def delay(self, attempt: int) -> float:
        ceiling = min(self.max_seconds, self.initial_seconds * 2.0 ** max(0, attempt))
        jitter = self.draw()
        return ceiling / 2 + (ceiling / 2) * jitter

    def delay_after(self, error: BaseException, attempt: int) -> float:
        """The backoff, or longer when a 429 said ``Retry-After``."""
        delay = self.delay(attempt)
        if isinstance(error, ParleyRateLimitedError) and error.retry_after_seconds is not None:
            return max(delay, error.retry_after_seconds)
        return delay
