import type { Agent } from '@openai/agents';

/**
 * Any agent, whatever its context and output types: the adapter only stores, restores and continues
 * runs, so it is generic over the agent the way the SDK's own run() is (whose signature uses `any` too).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyAgent = Agent<any, any>;
