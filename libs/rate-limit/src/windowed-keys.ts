/** Beyond this many entries, an insertion first forgets the ones whose window has ended. */
const COLLECT_ABOVE = 1_000;

/** Keys marked until a given time (epoch ms, the end of their window), in this process's memory. */
export class WindowedKeys {
  private readonly until = new Map<string, number>();

  add(key: string, expire: number): void {
    if (expire <= Date.now()) return;
    if (this.until.size >= COLLECT_ABOVE) this.collect();
    this.until.set(key, Math.max(expire, this.until.get(key) ?? 0));
  }

  /** Milliseconds until `key`'s mark ends; 0 when it is not marked. */
  msLeft(key: string): number {
    const expire = this.until.get(key);
    if (expire === undefined) return 0;
    const left = expire - Date.now();
    if (left > 0) return left;
    this.until.delete(key);
    return 0;
  }

  private collect(): void {
    const now = Date.now();
    for (const [key, expire] of this.until) if (expire <= now) this.until.delete(key);
  }
}
