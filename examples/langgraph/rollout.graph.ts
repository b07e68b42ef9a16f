import { appendFile } from 'node:fs/promises';
import { Annotation, type BaseCheckpointSaver, END, START, StateGraph } from '@langchain/langgraph';
import { askHuman, type HumanReply } from '@parley/client/langgraph';

const Rollout = Annotation.Root({
  service: Annotation<string>,
  reply: Annotation<HumanReply | undefined>,
  done: Annotation<string | undefined>,
});

/**
 * Two nodes: `choose` pauses on `interrupt()` (through `askHuman`) for the rollout plan; `roll_out`
 * acts on the reply and records the action in `actionsLog` — after the interrupt, in its own node,
 * so a resumed thread acts once.
 */
export function rolloutGraph(checkpointer: BaseCheckpointSaver, actionsLog: string) {
  return new StateGraph(Rollout)
    .addNode('choose', (state) => {
      const reply = askHuman({
        context: `A LangGraph agent is about to roll out ${state.service}.`,
        questions: [
          {
            id: 'plan',
            title: 'Rollout plan',
            prompt: `How should ${state.service} be rolled out?`,
            options: [
              { option_id: 'canary', label: 'Canary', description: '5% of traffic first' },
              { option_id: 'all', label: 'All at once' },
            ],
          },
        ],
      });
      return { reply };
    })
    .addNode('roll_out', async (state) => {
      const reply = state.reply;
      const action = reply?.status === 'answered' ? `rolled out ${state.service}: ${reply.answers[0]?.selected_options.join(',') ?? ''}` : `did not roll out ${state.service}`;
      await appendFile(actionsLog, `${JSON.stringify({ action, pid: process.pid })}\n`);
      return { done: action };
    })
    .addEdge(START, 'choose')
    .addEdge('choose', 'roll_out')
    .addEdge('roll_out', END)
    .compile({ checkpointer });
}
