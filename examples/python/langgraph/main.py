"""A LangGraph agent that pauses on ``interrupt()``: the adapter turns the interrupt's payload into a
Parley bundle and resumes the thread with ``Command(resume=…)`` from the answer. The thread's
checkpointer (SQLite in the state directory) is the durable state: killed while it waits, the next
start finds the thread still interrupted, finds the bundle it asked (its context names the
interrupt) and resumes — it never asks twice, and the node after the interrupt acts once."""

from __future__ import annotations

import sqlite3
import sys
import uuid
from pathlib import Path
from typing import Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from shared.example_runner import example_env, print_result, print_waiting, run_example  # noqa: E402

from parley.langgraph import ask_human, drive_thread  # noqa: E402

env = example_env("langgraph")


class Rollout(TypedDict, total=False):
    service: str
    reply: dict[str, Any]
    done: str


def choose(state: Rollout) -> Rollout:
    reply = ask_human(
        context=f"A LangGraph agent is about to roll out {state['service']}.",
        questions=[
            {
                "id": "plan",
                "title": "Rollout plan",
                "prompt": f"How should {state['service']} be rolled out?",
                "options": [
                    {"option_id": "canary", "label": "Canary", "description": "5% of traffic first"},
                    {"option_id": "all", "label": "All at once"},
                ],
            }
        ],
    )
    return {"reply": reply}


def roll_out(state: Rollout) -> Rollout:
    # After the interrupt, in its own node: a resumed thread acts once.
    reply = state["reply"]
    if reply["status"] == "answered":
        action = f"rolled out {state['service']}: {','.join(reply['answers'][0]['selected_options'])}"
    else:
        action = f"did not roll out {state['service']}"
    env.record_action(action)
    return {"done": action}


def main() -> None:
    parley = env.sync_client()
    run = env.load_run() or env.new_run(parley.open_session("LangGraph example: roll out checkout", workspace_name=env.workspace))
    if "thread_id" not in run:
        run["thread_id"] = str(uuid.uuid4())
        env.save_run(run)
    with sqlite3.connect(env.state_dir / "checkpoints.sqlite", check_same_thread=False) as connection:
        graph = StateGraph(Rollout).add_node("choose", choose).add_node("roll_out", roll_out)
        graph.add_edge(START, "choose").add_edge("choose", "roll_out").add_edge("roll_out", END)
        compiled = graph.compile(checkpointer=SqliteSaver(connection))
        thread = drive_thread(parley, session_id=run["session_id"], graph=compiled, thread_id=run["thread_id"], input={"service": "checkout"}, on_asked=print_waiting, expires_in_seconds=env.expires_in_seconds)
    env.finish_run()
    reply = thread.replies[0] if thread.replies else None
    if reply is None:
        print_result({"finished": run["thread_id"]})
    elif reply["status"] == "rejected":
        print_result({"rejected": reply["reason"]})
    elif reply["status"] != "answered":
        print_result({reply["status"]: reply["pending_id"]})
    else:
        # The value the thread was resumed with (Command(resume=…)), as the node received it.
        print_result({"answered": reply})


run_example(env, main)
