/** How long the last look waits: a machine that stalled past the deadline gets the awaited work one more turn. */
const LAST_LOOK_MS = 250;

/** Polls `read` until it yields a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  read: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastLook = false;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (lastLook) throw new Error(`${what} not reached within ${timeoutMs}ms`);
    lastLook = Date.now() > deadline;
    await new Promise((resolve) => setTimeout(resolve, lastLook ? LAST_LOOK_MS : 20));
  }
}
