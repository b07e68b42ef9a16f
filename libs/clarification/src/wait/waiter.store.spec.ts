import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { DeliveryOutcome, WaitFailure, type WaiterPresence, WaiterRole, WaiterStore, type WaitOptions } from './waiter.store.js';

/**
 * The per-process registry of blocked callers (baseline "Delivery with confirmation"): pure logic, no
 * database — the durable rows are the authority; the store only knows who waits, in which role.
 */

const LONG = 60_000;
const { Agent, Observer } = WaiterRole;

function response(pendingId: string, text = 'yes'): ClarificationResponse {
  return {
    pending_id: pendingId,
    answers: [{ question_id: 'q1', selected_options: [], custom_text: text }],
    rejected: false,
    reject_reason: '',
    responded_at: '2026-12-01T00:00:00.000Z',
  };
}

class WaitError extends Error {
  constructor(readonly reason: WaitFailure) {
    super(`wait ended: ${reason}`);
  }
}

/** A parked wait as a promise: the answer resolves it, an ending rejects it with a WaitError. */
function waitOn(store: WaiterStore, pendingId: string, options: WaitOptions): Promise<ClarificationResponse> {
  return new Promise((resolve, reject) => {
    store.park(pendingId, options, { answered: resolve, ended: (reason) => reject(new WaitError(reason)) });
  });
}

async function waitErrorOf(wait: Promise<unknown>): Promise<WaitError> {
  try {
    await wait;
  } catch (error) {
    if (error instanceof WaitError) return error;
    throw error;
  }
  throw new Error('expected the wait to end with a WaitError');
}

/** Resolves once `promise` settled (or reports that it is still pending after the current turn). */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const raced = await Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((resolve) => setImmediate(() => resolve(marker)))]);
  return raced !== marker;
}

class RecordingPresence implements WaiterPresence {
  readonly log: string[] = [];
  occupied(pendingId: string): void {
    this.log.push(`+${pendingId}`);
  }
  vacated(pendingId: string): void {
    this.log.push(`-${pendingId}`);
  }
}

describe('WaiterStore', () => {
  let store: WaiterStore;
  let presence: RecordingPresence;

  beforeEach(() => {
    store = new WaiterStore();
    presence = new RecordingPresence();
    store.observePresence(presence);
  });

  afterEach(() => {
    store.beforeApplicationShutdown();
  });

  describe('offer (delivery to the agent, with confirmation)', () => {
    it('confirms exactly once, then hands every agent waiter the one response; observers are not offered', async () => {
      const agents = [waitOn(store, 'p1', { role: Agent, timeoutMs: LONG }), waitOn(store, 'p1', { role: Agent, timeoutMs: LONG })];
      const observer = waitOn(store, 'p1', { role: Observer, timeoutMs: LONG });
      let confirmations = 0;
      const outcome = await store.offer('p1', response('p1'), () => {
        confirmations += 1;
        return Promise.resolve();
      });
      expect(outcome).toBe(DeliveryOutcome.Delivered);
      expect(confirmations).toBe(1);
      expect(await Promise.all(agents)).toEqual([response('p1'), response('p1')]);
      expect(await isSettled(observer)).toBe(false);
      expect(store.hasAgent('p1')).toBe(false);
      store.settle('p1', response('p1'));
      expect(await observer).toEqual(response('p1'));
      expect(store.waiterCount('p1')).toBe(0);
    });

    it('reports NoWaiter and never confirms when no agent waits (only observers, or nobody)', async () => {
      let confirmations = 0;
      const confirm = () => {
        confirmations += 1;
        return Promise.resolve();
      };
      expect(await store.offer('nobody', response('nobody'), confirm)).toBe(DeliveryOutcome.NoWaiter);
      const observer = waitOn(store, 'p1', { role: Observer, timeoutMs: LONG });
      expect(await store.offer('p1', response('p1'), confirm)).toBe(DeliveryOutcome.NoWaiter);
      expect(confirmations).toBe(0);
      expect(await isSettled(observer)).toBe(false);
    });

    it('a failing confirmation fails the delivery: the agents are not told anything and keep waiting for a later delivery', async () => {
      const agent = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      const outcome = await store.offer('p1', response('p1', 'first'), () => Promise.reject(new Error('finalize failed')));
      expect(outcome).toBe(DeliveryOutcome.Failed);
      expect(await isSettled(agent)).toBe(false);
      expect(store.hasAgent('p1')).toBe(true);
      expect(await store.offer('p1', response('p1', 'retry'), () => Promise.resolve())).toBe(DeliveryOutcome.Delivered);
      expect(await agent).toEqual(response('p1', 'retry'));
    });

    it('an agent whose bound passes while its confirmation is in flight still gets the confirmed answer', async () => {
      const agent = waitOn(store, 'p1', { role: Agent, timeoutMs: 20 });
      let release!: () => void;
      const confirmation = new Promise<void>((resolve) => (release = resolve));
      const offered = store.offer('p1', response('p1'), () => confirmation);
      await new Promise((resolve) => setTimeout(resolve, 60));
      release();
      expect(await offered).toBe(DeliveryOutcome.Delivered);
      expect(await agent).toEqual(response('p1'));
    });

    it('an agent whose bound passed during a confirmation that then failed ends with TimedOut', async () => {
      const agent = waitOn(store, 'p1', { role: Agent, timeoutMs: 20 });
      let fail!: () => void;
      const confirmation = new Promise<void>((_, reject) => (fail = () => reject(new Error('down'))));
      const offered = store.offer('p1', response('p1'), () => confirmation);
      await new Promise((resolve) => setTimeout(resolve, 60));
      fail();
      expect(await offered).toBe(DeliveryOutcome.Failed);
      expect((await waitErrorOf(agent)).reason).toBe(WaitFailure.TimedOut);
    });
  });

  describe('settle and close', () => {
    it('settle tells every waiter of the bundle the final response, and only that bundle', async () => {
      const waits = [waitOn(store, 'p1', { role: Agent, timeoutMs: LONG }), waitOn(store, 'p1', { role: Observer, timeoutMs: LONG })];
      const other = waitOn(store, 'p2', { role: Observer, timeoutMs: LONG });
      store.settle('p1', response('p1'));
      expect(await Promise.all(waits)).toEqual([response('p1'), response('p1')]);
      expect(await isSettled(other)).toBe(false);
    });

    it('close ends every waiter with the reason; close for agents only leaves observers waiting (detach)', async () => {
      const agent = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      const observer = waitOn(store, 'p1', { role: Observer, timeoutMs: LONG });
      store.close('p1', WaitFailure.Detached, Agent);
      expect((await waitErrorOf(agent)).reason).toBe(WaitFailure.Detached);
      expect(await isSettled(observer)).toBe(false);
      store.close('p1', WaitFailure.Cancelled);
      expect((await waitErrorOf(observer)).reason).toBe(WaitFailure.Cancelled);
      expect(store.pendingIds()).toEqual([]);
    });

    it('shutdown ends every wait with ShuttingDown', async () => {
      const waits = [waitOn(store, 'p1', { role: Agent, timeoutMs: LONG }), waitOn(store, 'p2', { role: Observer, timeoutMs: LONG })];
      store.beforeApplicationShutdown();
      for (const wait of waits) expect((await waitErrorOf(wait)).reason).toBe(WaitFailure.ShuttingDown);
    });
  });

  describe('time bounds', () => {
    it('a wait ends with TimedOut after its own bound; other waiters go on', async () => {
      const patient = waitOn(store, 'p1', { role: Observer, timeoutMs: LONG });
      expect((await waitErrorOf(waitOn(store, 'p1', { role: Agent, timeoutMs: 20 }))).reason).toBe(WaitFailure.TimedOut);
      expect(store.waiterCount('p1')).toBe(1);
      expect(await isSettled(patient)).toBe(false);
    });
  });

  describe('park: a listener instead of a promise (the REST long poll)', () => {
    function recorder() {
      const told: string[] = [];
      return {
        told,
        listener: {
          answered: (answer: ClarificationResponse) => told.push(`answered ${answer.pending_id}`),
          ended: (reason: WaitFailure) => told.push(`ended ${reason}`),
        },
      };
    }

    it('tells its listener once, however many things end it', () => {
      const { told, listener } = recorder();
      const parked = store.park('p1', { role: Agent, timeoutMs: LONG }, listener);
      expect(store.waiterCount('p1')).toBe(1);
      store.settle('p1', response('p1'));
      parked.abort();
      store.close('p1', WaitFailure.Cancelled);
      expect(told).toEqual(['answered p1']);
      expect(store.waiterCount('p1')).toBe(0);
    });

    it('aborting the handle withdraws the wait and its presence', () => {
      const { told, listener } = recorder();
      store.park('p1', { role: Agent, timeoutMs: LONG }, listener).abort();
      expect(told).toEqual([`ended ${WaitFailure.Aborted}`]);
      expect(store.waiterCount('p1')).toBe(0);
      expect(store.pendingIds()).toEqual([]);
      expect(presence.log).toEqual(['+p1', '-p1']);
    });

    it('a lone waiter, then two, then one again: each counted, found and woken', async () => {
      const { told, listener } = recorder();
      const agent = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      expect(store.waiterCount('p1')).toBe(1);
      store.park('p1', { role: Observer, timeoutMs: LONG }, listener);
      expect(store.waiterCount('p1')).toBe(2);
      store.close('p1', WaitFailure.Detached, Agent);
      expect((await waitErrorOf(agent)).reason).toBe(WaitFailure.Detached);
      expect({ count: store.waiterCount('p1'), agent: store.hasAgent('p1'), ids: store.pendingIds() }).toEqual({ count: 1, agent: false, ids: ['p1'] });
      const again = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      expect(store.hasAgent('p1')).toBe(true);
      store.settle('p1', response('p1'));
      await expect(again).resolves.toEqual(response('p1'));
      expect(told).toEqual(['answered p1']);
      expect({ count: store.waiterCount('p1'), ids: store.pendingIds() }).toEqual({ count: 0, ids: [] });
      expect(presence.log).toEqual(['+p1', '-p1', '+p1']);
    });
  });

  describe('presence (the agent waits here)', () => {
    it('is announced with the first agent waiter and withdrawn with the last; observers do not count', async () => {
      const observer = waitOn(store, 'p1', { role: Observer, timeoutMs: LONG });
      expect(presence.log).toEqual([]);
      const first = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      const second = waitOn(store, 'p1', { role: Agent, timeoutMs: LONG });
      expect(presence.log).toEqual(['+p1']);
      store.close('p1', WaitFailure.Detached, Agent);
      await Promise.allSettled([first, second]);
      expect(presence.log).toEqual(['+p1', '-p1']);
      store.close('p1', WaitFailure.Cancelled);
      await Promise.allSettled([observer]);
      expect(presence.log).toEqual(['+p1', '-p1']);
    });
  });
});
