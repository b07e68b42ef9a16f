/** Something with a deadline: `slot` is the wheel's bookkeeping, `expire` runs once the deadline passed. */
export interface Expiring {
  slot: number;
  expire(): void;
}

/** Deadlines are rounded up to this; a wait may end up to this much after its bound, never before it. */
const RESOLUTION_MS = 10;

/**
 * The deadlines of every blocked caller on ONE timer, armed for the earliest: ten thousand waiters
 * cost ten thousand set entries instead of ten thousand timers and their closures (less memory per waiter, docs/benchmarks.md).
 */
export class DeadlineWheel {
  private readonly slots = new Map<number, Set<Expiring>>();
  private timer: NodeJS.Timeout | undefined;
  private armedSlot = Number.POSITIVE_INFINITY;

  add(entry: Expiring, timeoutMs: number): void {
    const slot = Math.ceil((performance.now() + timeoutMs) / RESOLUTION_MS);
    entry.slot = slot;
    let due = this.slots.get(slot);
    if (!due) {
      due = new Set();
      this.slots.set(slot, due);
    }
    due.add(entry);
    if (slot < this.armedSlot) this.arm(slot);
  }

  remove(entry: Expiring): void {
    const due = this.slots.get(entry.slot);
    if (!due?.delete(entry)) return;
    if (due.size > 0) return;
    this.slots.delete(entry.slot);
    if (this.slots.size === 0) this.disarm();
  }

  private arm(slot: number): void {
    clearTimeout(this.timer);
    this.armedSlot = slot;
    this.timer = setTimeout(() => this.tick(), Math.max(0, slot * RESOLUTION_MS - performance.now()));
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedSlot = Number.POSITIVE_INFINITY;
  }

  private tick(): void {
    this.timer = undefined;
    this.armedSlot = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const expired: Expiring[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [slot, due] of this.slots) {
      if (slot * RESOLUTION_MS <= now) {
        expired.push(...due);
        this.slots.delete(slot);
      } else if (slot < next) next = slot;
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const entry of expired) entry.expire();
  }
}
