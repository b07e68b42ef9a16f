/**
 * The bearer token of a graphql-ws `connection_init` payload, in the shapes common clients send:
 * `{authorization}`, `{Authorization}`, or either inside `{headers: {...}}` — each `Bearer <token>`.
 * Undefined when the payload carries none (the upgrade request's credentials then apply).
 */
export function connectionInitCredential(payload: unknown): string | undefined {
  if (typeof payload !== 'object' || payload === null) return undefined;
  const { authorization, Authorization, headers } = payload as Record<string, unknown>;
  const nested = typeof headers === 'object' && headers !== null ? (headers as Record<string, unknown>) : {};
  const value = [authorization, Authorization, nested.authorization, nested.Authorization].find((candidate) => typeof candidate === 'string');
  return /^Bearer\s+(\S+)\s*$/i.exec((value) ?? '')?.[1];
}
