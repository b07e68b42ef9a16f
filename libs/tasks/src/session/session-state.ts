export enum SessionState {
  Created = 'CREATED',
  Starting = 'STARTING',
  Running = 'RUNNING',
  Idle = 'IDLE',
  WaitingForInput = 'WAITING_FOR_INPUT',
  Completed = 'COMPLETED',
  Failed = 'FAILED',
  Cancelled = 'CANCELLED',
}

export const TERMINAL_SESSION_STATES: readonly SessionState[] = [
  SessionState.Completed,
  SessionState.Failed,
  SessionState.Cancelled,
];

const ENDINGS = TERMINAL_SESSION_STATES;

const TRANSITIONS: Record<SessionState, readonly SessionState[]> = {
  [SessionState.Created]: [SessionState.Starting, SessionState.Running, SessionState.Idle, ...ENDINGS],
  [SessionState.Starting]: [SessionState.Running, SessionState.Idle, SessionState.WaitingForInput, ...ENDINGS],
  [SessionState.Running]: [SessionState.Idle, SessionState.WaitingForInput, ...ENDINGS],
  [SessionState.Idle]: [SessionState.Starting, SessionState.Running, SessionState.WaitingForInput, ...ENDINGS],
  [SessionState.WaitingForInput]: [SessionState.Running, SessionState.Idle, ...ENDINGS],
  [SessionState.Completed]: [],
  [SessionState.Failed]: [],
  [SessionState.Cancelled]: [],
};

export function isTerminalSessionState(state: SessionState): boolean {
  return TERMINAL_SESSION_STATES.includes(state);
}

/** Whether `from → to` is a legal move; staying in the same state is always allowed (a no-op). */
export function canTransition(from: SessionState, to: SessionState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}
