/**
 * An AI SDK agent whose tool call needs a person's approval: the scripted model calls `deploy`,
 * the AI SDK pauses on the approval request, Parley asks it as one approve/deny question (tool name
 * and arguments shown), and the run continues with the decision. No network model.
 */
import { generateText, jsonSchema, type ModelMessage, tool } from 'ai';
import { runWithApprovals, withParleyApproval } from '@parley/client/ai-sdk';
import { exampleEnv, finishRun, openRun, printResult, printWaiting, runExample } from '../shared/example.runner.js';
import { deployingModel } from './scripted.model.js';

const env = exampleEnv('ai-sdk');

const deploy = withParleyApproval(
  tool({
    description: 'Deploy a service to an environment',
    inputSchema: jsonSchema<{ service: string; environment: string }>({
      type: 'object',
      properties: { service: { type: 'string' }, environment: { type: 'string' } },
      required: ['service', 'environment'],
    }),
    execute: ({ service, environment }) => Promise.resolve({ deployed: true, service, environment }),
  }),
);

runExample(env, async () => {
  const { sessionId } = await openRun(env, 'AI SDK example: deploy checkout');
  const model = deployingModel();
  const run = await runWithApprovals({
    parley: env.parley,
    sessionId,
    messages: [{ role: 'user', content: 'Deploy checkout to production.' }] satisfies ModelMessage[],
    generate: (messages) => generateText({ model, tools: { deploy }, messages }),
    onAsked: printWaiting,
  });
  await finishRun(env);
  const outcome = run.outcomes[0];
  if (outcome?.status === 'rejected') return printResult({ rejected: outcome.reason });
  if (outcome && outcome.status !== 'answered') return printResult({ [outcome.status]: outcome.pendingId });
  // The approval responses exactly as the AI SDK was given them (the `tool` message's parts).
  printResult({ answered: run.responses.flatMap((message): unknown[] => (Array.isArray(message.content) ? message.content : [message.content])) });
});
