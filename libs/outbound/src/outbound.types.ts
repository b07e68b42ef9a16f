/** The one setting every outbound call obeys (docs/configuration.md). */
export interface OutboundSettings {
  /** Allow targets on loopback, private, link-local and translated addresses (refused by default: no SSRF into the server's network). */
  allowPrivateTargets: boolean;
}

/** The environment variable that sets `allowPrivateTargets`: refusals name it. */
export const ALLOW_PRIVATE_TARGETS_VARIABLE = 'OUTBOUND_ALLOW_PRIVATE_TARGETS';

export const OUTBOUND_SETTINGS = Symbol('OUTBOUND_SETTINGS');

/**
 * What became of one outbound POST. `unreached`: the request never left — refused by the policy, a
 * name that did not resolve, a connection that could not be opened. `unknown`: it may have reached
 * the target (no answer within the bound, or the connection failed once open). `reason` is for logs
 * and the operator, never for whoever caused the call.
 */
export type OutboundReply =
  | { kind: 'answered'; status: number; body?: string }
  | { kind: 'unreached'; reason: string }
  | { kind: 'unknown'; reason: string };

export interface PostOptions {
  /** Bound on the whole call: resolving the name, connecting, sending and the response's status. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Read the response's body, up to this many bytes (more is a failure): for calls whose reply carries data. */
  readBodyBytes?: number;
}
