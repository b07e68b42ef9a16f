/**
 * TEST-ONLY fault injection, inert unless PARLEY_TEST_COMMAND_PAUSE is set — never set it outside a
 * test. `<phase>:<ms>` holds a live answer_decision for ms milliseconds at that phase, so a test can
 * kill the process there: `send_started` (receipt and claim marked, ResolveBundle not yet called)
 * or `sent` (ResolveBundle returned, receipt not yet terminal).
 */
export type PausePhase = 'send_started' | 'sent';

export async function testPause(phase: PausePhase): Promise<void> {
  const [at, ms] = (process.env.PARLEY_TEST_COMMAND_PAUSE ?? '').split(':');
  if (at !== phase) return;
  await new Promise((resolve) => setTimeout(resolve, Number(ms) || 0));
}
