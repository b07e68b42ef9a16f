"""An OpenAI Agents SDK agent whose refund tool needs approval: the run's interruption becomes one
Parley bundle; the answer calls ``state.approve`` (the tool runs) or ``state.reject`` (the model is
told why). The serialized RunState is stored under the bundle's pending id before anything waits:
killed while it waits, the next start rebuilds the run and waits on the same bundle. No network
model: a scripted Agents SDK model calls the tool, then reports what the tool returned."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents import Agent, function_tool, set_tracing_disabled  # noqa: E402
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call  # noqa: E402
from shared.example_runner import example_env, print_result, print_waiting, run_example  # noqa: E402

from parley.openai_agents import AgentRun, FileRunStateStore, resume_stored_runs, run_with_parley  # noqa: E402

env = example_env("openai_agents")
# No network: the scripted model needs no key, and no trace leaves the machine.
set_tracing_disabled(True)


@function_tool(needs_approval=True)
def issue_refund(order_id: str, amount_eur: int) -> str:
    """Refund an order."""
    action = f"refunded {amount_eur} EUR on {order_id}"
    env.record_action(action)
    return action


def _tool_output(call: ModelCall) -> str | None:
    items: list[Any] = call.input if isinstance(call.input, list) else []
    outputs = [item for item in items if isinstance(item, dict) and item.get("type") == "function_call_output"]
    return str(outputs[-1]["output"]) if outputs else None


def scripted_turn(call: ModelCall) -> Any:
    """First turn: call the refund tool. Once it answered (ran, or was denied): say what happened."""
    output = _tool_output(call)
    if output is None:
        return [function_call("issue_refund", {"order_id": "A-1042", "amount_eur": 129}, call_id="call-refund")]
    return [assistant_message(f"Done: {output}")]


def refund_agent() -> Agent[Any]:
    model = ScriptedModel([ModelStep.respond(scripted_turn) for _ in range(8)])
    return Agent(name="refunds", instructions="Refund orders when asked.", tools=[issue_refund], model=model)


async def drive() -> AgentRun:
    async with env.client() as parley:
        run = env.load_run() or env.new_run(await parley.open_session("Agents SDK example: refund A-1042", workspace_name=env.workspace))
        agent = refund_agent()
        store = FileRunStateStore(env.state_dir / "runs")
        target: dict[str, Any] = {"session_id": run["session_id"], "agent": agent, "store": store, "on_asked": print_waiting, "expires_in_seconds": env.expires_in_seconds}
        resumed = await resume_stored_runs(parley, **target)
        return resumed[0] if resumed else await run_with_parley(parley, input="Refund order A-1042", **target)


def main() -> None:
    finished = asyncio.run(drive())
    env.finish_run()
    last = finished.outcomes[-1] if finished.outcomes else None
    if last is not None and last.status == "rejected":
        print_result({"rejected": last.reason})
        return
    if last is not None and not last.is_decision:
        # Expired, cancelled or superseded: nobody decided, so every call was denied.
        print_result({last.status: last.pending_id})
        return
    decisions = [decision.as_json() for decision in finished.decisions]
    print_result({"answered": {"decisions": decisions, "final_output": str(finished.result.final_output)}})


run_example(env, main)
