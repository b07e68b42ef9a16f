"""A Pydantic AI agent whose deploy tool requires approval: the run ends on ``DeferredToolRequests``,
the adapter asks the call as one Parley bundle whose ``action`` is the call's name and arguments (so
the receipt binds them), and answers back with ``DeferredToolResults``. The run's messages are
stored under the bundle's pending id: killed while it waits, the next start waits on the same
bundle. No network model: a ``FunctionModel`` calls the tool, then reports what it returned."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic_ai import Agent, DeferredToolRequests  # noqa: E402
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402
from shared.example_runner import example_env, print_result, print_waiting, run_example  # noqa: E402

from parley.pydantic_ai import FileRunStateStore, PydanticAiRun, resume_stored_runs, run_with_parley  # noqa: E402

env = example_env("pydantic_ai")


def scripted_turn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """First turn: call the deploy tool. Once it answered (ran, or was denied): say what happened."""
    last = messages[-1]
    returned = [part for part in last.parts if isinstance(part, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    if returned:
        return ModelResponse(parts=[TextPart(f"Done: {returned[-1].model_response_str()}")])
    return ModelResponse(parts=[ToolCallPart("deploy", {"service": "checkout", "environment": "production"}, tool_call_id="call-deploy")])


def deploy_agent() -> Agent[None, str | DeferredToolRequests]:
    agent: Agent[None, str | DeferredToolRequests] = Agent(FunctionModel(scripted_turn), output_type=[str, DeferredToolRequests])

    @agent.tool_plain(requires_approval=True)
    def deploy(service: str, environment: str) -> str:
        """Deploy a service to an environment."""
        action = f"deployed {service} to {environment}"
        env.record_action(action)
        return action

    return agent


async def drive() -> PydanticAiRun:
    async with env.client() as parley:
        run = env.load_run() or env.new_run(await parley.open_session("Pydantic AI example: deploy checkout", workspace_name=env.workspace))
        agent = deploy_agent()
        store = FileRunStateStore(env.state_dir / "runs")
        target: dict[str, Any] = {"session_id": run["session_id"], "agent": agent, "store": store, "on_asked": print_waiting, "expires_in_seconds": env.expires_in_seconds}
        resumed = await resume_stored_runs(parley, **target)
        return resumed[0] if resumed else await run_with_parley(parley, prompt="Deploy checkout to production", **target)


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
    print_result({"answered": {"decisions": decisions, "output": str(finished.result.output), "receipt": last.receipt if last else None}})


run_example(env, main)
