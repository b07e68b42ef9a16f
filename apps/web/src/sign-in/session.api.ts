import { errorMessage, requestJson } from '../http.js';

export interface SignedIn {
  kind: 'signed-in';
  authEnabled: boolean;
  /** The signed-in user's name; empty for the synthetic identity (auth disabled) and admins. */
  name: string;
  callerKind: 'synthetic' | 'admin' | 'user';
}

export type SessionInfo = SignedIn | { kind: 'signed-out' };

interface CallerView {
  auth_mode: 'enabled' | 'disabled';
  caller: { kind: SignedIn['callerKind']; user_id: string | null; name: string | null };
}

/** GET /api/v1/auth/session: who this browser is (401 ⇒ auth is enabled and nobody is signed in). */
export async function currentSession(): Promise<SessionInfo> {
  const response = await requestJson('GET', '/api/v1/auth/session');
  if (response.status === 401) return { kind: 'signed-out' };
  if (!response.ok) throw new Error(await errorMessage(response));
  const view = (await response.json()) as CallerView;
  return { kind: 'signed-in', authEnabled: view.auth_mode === 'enabled', name: view.caller.name ?? '', callerKind: view.caller.kind };
}

/** POST /api/v1/auth/session {token}: the server sets the session cookie; the token is not kept by the page. */
export async function signIn(token: string): Promise<{ ok: true } | { ok: false; message: string }> {
  const response = await requestJson('POST', '/api/v1/auth/session', { token });
  if (response.ok) return { ok: true };
  if (response.status === 401) return { ok: false, message: 'That token is unknown or revoked.' };
  return { ok: false, message: await errorMessage(response) };
}

/** DELETE /api/v1/auth/session: the server ends the session. */
export async function signOut(): Promise<void> {
  await requestJson('DELETE', '/api/v1/auth/session');
}
