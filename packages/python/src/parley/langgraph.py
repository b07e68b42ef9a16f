"""LangGraph: each ``interrupt()`` payload becomes one Parley bundle, and the thread resumes with
``Command(resume=…)``. The thread's checkpointer is the durable state: a process restarted while
the thread waits calls ``drive_thread`` again and resumes it on the same bundle, never asking twice.

Needs the ``[langgraph]`` extra."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from langgraph.types import Command, interrupt

from ._approvals import human_reply
from ._sync_client import Parley

__all__ = ["ThreadRun", "ask_human", "drive_thread", "interrupt_marker"]


def ask_human(questions: Sequence[Mapping[str, Any]], context: str | None = None) -> dict[str, Any]:
    """Inside a graph node: pauses the thread on ``interrupt()`` with a Parley-shaped payload (1–4
    questions) and returns the reply it is resumed with. Like every interrupt, the node runs again
    from its start on resume: put side effects after this call."""
    payload: dict[str, Any] = {"questions": [dict(question) for question in questions]}
    if context is not None:
        payload["context"] = context
    reply: dict[str, Any] = interrupt(payload)
    return reply


class InterruptibleGraph(Protocol):
    """What ``drive_thread`` needs of a compiled graph (with a checkpointer)."""

    def invoke(self, input: Any, config: Any) -> Any: ...

    def get_state(self, config: Any) -> Any: ...


@dataclass
class ThreadRun:
    output: Any
    replies: list[dict[str, Any]] = field(default_factory=list)


def interrupt_marker(thread_id: str, interrupt_id: str) -> str:
    """The tag written into a bundle's context that names the thread and interrupt it was asked for."""
    return f"[langgraph thread {thread_id}, interrupt {interrupt_id}]"


def _default_questions(payload: Any) -> dict[str, Any]:
    if not isinstance(payload, Mapping) or not isinstance(payload.get("questions"), list):
        raise ValueError("the interrupt payload is not {questions: [...]}: pass to_questions to map it")
    questions: dict[str, Any] = {"questions": payload["questions"]}
    if isinstance(payload.get("context"), str):
        questions["context"] = payload["context"]
    return questions


def _pending_interrupts(graph: InterruptibleGraph, config: Mapping[str, Any]) -> tuple[list[Any], bool]:
    state = graph.get_state(config)
    pending = [one for task in state.tasks for one in task.interrupts]
    started = state.config.get("configurable", {}).get("checkpoint_id") is not None
    return pending, started


def drive_thread(
    parley: Parley,
    *,
    session_id: str,
    graph: InterruptibleGraph,
    thread_id: str,
    input: Any = None,
    to_questions: Callable[[Any], Mapping[str, Any]] = _default_questions,
    on_asked: Callable[[str], None] | None = None,
    expires_in_seconds: int | None = None,
) -> ThreadRun:
    """Runs a thread to its end with every ``interrupt()`` answered on Parley: starts it with
    ``input`` when it has never run; while it is paused, asks one bundle per interrupt (or finds the
    one asked before a restart, by the marker in its context) and resumes with
    ``Command(resume=…)``. A thread that already ran to its end is left alone. Once the resumed
    node's checkpoint is written, the reply is never applied again."""
    config: dict[str, Any] = {"configurable": {"thread_id": thread_id}}
    run = ThreadRun(output=None)
    pending, started = _pending_interrupts(graph, config)
    if not pending:
        if input is None or started:
            return run
        run.output = graph.invoke(input, config)
        pending, _ = _pending_interrupts(graph, config)
    while pending:
        replies: list[dict[str, Any]] = []
        for one in pending:
            asked = to_questions(one.value)
            marker = interrupt_marker(thread_id, str(one.id))
            pending_id = parley.find_bundle(session_id, marker)
            if pending_id is None:
                context = "\n\n".join([str(asked.get("context") or "A LangGraph agent is waiting for your answer."), marker])
                pending_id = parley.ask(session_id=session_id, questions=asked["questions"], context=context, expires_in_seconds=expires_in_seconds).pending_id
            if on_asked is not None:
                on_asked(pending_id)
            replies.append(human_reply(asked["questions"], parley.outcome(pending_id)))
        run.replies.extend(replies)
        resume: Any = replies[0] if len(pending) == 1 else {one.id: reply for one, reply in zip(pending, replies)}
        run.output = graph.invoke(Command(resume=resume), config)
        pending, _ = _pending_interrupts(graph, config)
    return run
