/**
 * Test-only crash points. With `PARLEY_TEST_PAUSE_AT=<point>[,<point>…]` in its environment, a process
 * reaching a named point logs `{"msg":"paused at fault point","point":…}` and stops there for good, so
 * a test can `kill -9` it at exactly that step. Without the variable (always, outside tests) this is
 * a no-op.
 */
const pausePoints = new Set((process.env.PARLEY_TEST_PAUSE_AT ?? '').split(',').filter((point) => point !== ''));

export type FaultPoint = 'claim.committed' | 'resume.accepted' | 'deliver.offered' | 'command.send_started' | 'command.sent' | 'escalation.step';

export async function faultPoint(point: FaultPoint): Promise<void> {
  if (!pausePoints.has(point)) return;
  process.stdout.write(`${JSON.stringify({ level: 'warn', msg: 'paused at fault point', point })}\n`);
  await new Promise<never>(() => undefined);
}
