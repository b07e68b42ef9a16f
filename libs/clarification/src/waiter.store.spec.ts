import type { ClarificationRequest, ClarificationResponse } from './clarification.types.js';
import { type Delivery, DeliveryOutcome, type Waiter, WaitError, WaitFailure, WaiterStore } from './waiter.store.js';

/**
 * WaiterStore in isolation (baseline "Delivery after a winning claim" and "Lifecycle transitions"):
 * the per-process store is pure in-memory state, so these tests need no database and use short
 * real timers.
 */

const LONG = 60_000;

function requestOf(pendingId: string, sessionId = 'session-1'): ClarificationRequest {
  return {
    pending_id: pendingId,
    session_id: sessionId,
    task_id: 'task-1',
    questions: [{ id: 'q1', title: '', prompt: 'Which?', options: [] }],
    context: '',
    created_at: '2026-01-01T00:00:00.000Z',
  };
}

function responseOf(pendingId: string): ClarificationResponse {
  return {
    pending_id: pendingId,
    answers: [{ question_id: 'q1', selected_options: ['q1_opt1'], custom_text: '' }],
    rejected: false,
    reject_reason: '',
    responded_at: '2026-01-01T00:00:01.000Z',
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The WaitError a promise rejects with (fails the test when it resolves or rejects otherwise). */
async function waitErrorOf(promise: Promise<unknown>): Promise<WaitError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WaitError) return error;
    throw new Error(`expected a WaitError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the promise to reject');
}

/** Whether a promise has settled after the current macrotask turn. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await sleep(0);
  return done;
}

/** A hand-driven waiter that records what the store hands it and never confirms on its own. */
class RecordingWaiter implements Waiter {
  readonly offers: Delivery[] = [];
  readonly rejections: WaitError[] = [];
  offer(delivery: Delivery): void {
    this.offers.push(delivery);
  }
  reject(error: WaitError): void {
    this.rejections.push(error);
  }
}

describe('WaiterStore', () => {
  let stores: WaiterStore[];
  const newStore = (entryTtlMs = LONG) => {
    const store = new WaiterStore(entryTtlMs);
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    stores = [];
  });
  afterEach(() => {
    // Clears entry timers so that nothing outlives the test.
    stores.forEach((store) => store.beforeApplicationShutdown());
  });

  describe('register and read', () => {
    it('keeps the first registration of a bundle and lists the bundles of a session', () => {
      const store = newStore();
      const first = requestOf('p1');
      store.register(first);
      store.register({ ...requestOf('p1'), context: 'second registration' });
      store.register(requestOf('p2'));
      store.register(requestOf('p3', 'session-2'));
      expect(store.get('p1')).toBe(first);
      expect(store.get('unknown')).toBeUndefined();
      expect(store.pendingIdsOfSession('session-1').sort()).toEqual(['p1', 'p2']);
      expect(store.pendingIdsOfSession('session-2')).toEqual(['p3']);
      expect(store.waiterCount('p1')).toBe(0);
    });

    it('attach fails without a live entry', () => {
      const store = newStore();
      expect(store.attach('nope', new RecordingWaiter())).toBe(false);
      expect(store.waiterCount('nope')).toBe(0);
    });
  });

  describe('delivery', () => {
    it('wakes every waiter of the bundle with the one response, after finalize ran exactly once', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const events: string[] = [];
      const waits = [1, 2, 3].map((n) =>
        store.wait('p1', { timeoutMs: LONG }).then((response) => {
          events.push(`waiter ${n}`);
          return response;
        }),
      );
      expect(store.waiterCount('p1')).toBe(3);
      let finalizeCalls = 0;
      const response = responseOf('p1');
      const outcome = await store.deliver(
        'p1',
        response,
        async () => {
          finalizeCalls += 1;
          await sleep(20);
          events.push('finalized');
        },
        1000,
      );
      expect(outcome).toBe(DeliveryOutcome.Delivered);
      const results = await Promise.all(waits);
      results.forEach((result) => expect(result).toBe(response));
      expect(finalizeCalls).toBe(1);
      expect(events[0]).toBe('finalized');
      expect(events.slice(1).sort()).toEqual(['waiter 1', 'waiter 2', 'waiter 3']);
      // The entry is gone: a later wait finds nothing and a later delivery has no waiter.
      expect(store.get('p1')).toBeUndefined();
      expect(store.waiterCount('p1')).toBe(0);
      expect((await waitErrorOf(store.wait('p1', { timeoutMs: LONG }))).reason).toBe(WaitFailure.Cancelled);
    });

    it('runs finalize once even when several custom waiters confirm, and hands each the same confirmation', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const a = new RecordingWaiter();
      const b = new RecordingWaiter();
      expect(store.attach('p1', a)).toBe(true);
      expect(store.attach('p1', b)).toBe(true);
      let finalizeCalls = 0;
      const delivering = store.deliver(
        'p1',
        responseOf('p1'),
        async () => {
          finalizeCalls += 1;
        },
        1000,
      );
      expect(a.offers).toHaveLength(1);
      expect(b.offers).toHaveLength(1);
      const [offerA] = a.offers as [Delivery];
      const [offerB] = b.offers as [Delivery];
      expect(offerA.response).toEqual(responseOf('p1'));
      await Promise.all([offerA.confirm(), offerB.confirm(), offerA.confirm()]);
      expect(await delivering).toBe(DeliveryOutcome.Delivered);
      expect(finalizeCalls).toBe(1);
      expect(a.rejections).toEqual([]);
      expect(b.rejections).toEqual([]);
    });

    it('reports NoWaiter (and never finalizes) for an unknown bundle or an entry without waiters, dropping the entry', async () => {
      const store = newStore();
      let finalizeCalls = 0;
      const finalize = async () => {
        finalizeCalls += 1;
      };
      expect(await store.deliver('unknown', responseOf('unknown'), finalize, 1000)).toBe(DeliveryOutcome.NoWaiter);
      store.register(requestOf('p1'));
      expect(await store.deliver('p1', responseOf('p1'), finalize, 1000)).toBe(DeliveryOutcome.NoWaiter);
      expect(store.get('p1')).toBeUndefined();
      expect(finalizeCalls).toBe(0);
    });

    it('counts a waiter that left (timeout) as gone: NoWaiter', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      expect((await waitErrorOf(store.wait('p1', { timeoutMs: 10 }))).reason).toBe(WaitFailure.TimedOut);
      expect(store.waiterCount('p1')).toBe(0);
      expect(await store.deliver('p1', responseOf('p1'), async () => undefined, 1000)).toBe(DeliveryOutcome.NoWaiter);
    });

    it('abandons the delivery when no waiter starts confirming within the bound: errors instead of the answer, finalize never runs', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const waiter = new RecordingWaiter();
      store.attach('p1', waiter);
      let finalizeCalls = 0;
      const started = Date.now();
      const outcome = await store.deliver(
        'p1',
        responseOf('p1'),
        async () => {
          finalizeCalls += 1;
        },
        50,
      );
      expect(outcome).toBe(DeliveryOutcome.Abandoned);
      expect(Date.now() - started).toBeGreaterThanOrEqual(45);
      expect(finalizeCalls).toBe(0);
      expect(waiter.offers).toHaveLength(1);
      expect(waiter.rejections).toHaveLength(1);
      expect(waiter.rejections[0]).toBeInstanceOf(WaitError);
      expect(waiter.rejections[0]?.reason).toBe(WaitFailure.Abandoned);
      // A confirmation arriving after the deadline is refused and still does not finalize.
      const late = await waitErrorOf((waiter.offers[0] as Delivery).confirm());
      expect(late.reason).toBe(WaitFailure.Abandoned);
      expect(finalizeCalls).toBe(0);
      expect(store.get('p1')).toBeUndefined();
    });

    it('is not abandoned when confirmation started in time, however long finalize takes', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const waiter = new RecordingWaiter();
      store.attach('p1', waiter);
      const delivering = store.deliver('p1', responseOf('p1'), () => sleep(120), 30);
      const confirming = (waiter.offers[0] as Delivery).confirm();
      expect(await delivering).toBe(DeliveryOutcome.Delivered);
      await confirming;
      expect(waiter.rejections).toEqual([]);
    });

    it('a failing finalize fails the delivery and every waiter gets an error, not the answer', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const waits = [store.wait('p1', { timeoutMs: LONG }), store.wait('p1', { timeoutMs: LONG })];
      const failure = new Error('database unavailable');
      await expect(
        store.deliver(
          'p1',
          responseOf('p1'),
          async () => {
            throw failure;
          },
          1000,
        ),
      ).rejects.toBe(failure);
      for (const wait of waits) expect((await waitErrorOf(wait)).reason).toBe(WaitFailure.Abandoned);
    });

    it('a waiter whose wait bound passes while the confirmation is in flight still gets the delivered answer', async () => {
      // The finalize is the durable record that the answer reached the waiter; once it has started,
      // a timeout racing it must not turn a confirmed delivery into an error (the answer would be lost).
      const store = newStore();
      store.register(requestOf('p1'));
      const wait = store.wait('p1', { timeoutMs: 40 });
      const response = responseOf('p1');
      const outcome = await store.deliver('p1', response, () => sleep(120), 1000);
      expect(outcome).toBe(DeliveryOutcome.Delivered);
      await expect(wait).resolves.toBe(response);
    });
  });

  describe('cancel', () => {
    it('wakes every waiter with a Cancelled error exactly once; a second cancel finds nothing', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const waits = [store.wait('p1', { timeoutMs: LONG }), store.wait('p1', { timeoutMs: LONG })];
      const custom = new RecordingWaiter();
      store.attach('p1', custom);
      expect(store.cancel('p1')).toBe(true);
      for (const wait of waits) {
        const error = await waitErrorOf(wait);
        expect(error.reason).toBe(WaitFailure.Cancelled);
        expect(error.message).toBe('wait ended: cancelled');
      }
      expect(custom.rejections.map((error) => error.reason)).toEqual([WaitFailure.Cancelled]);
      expect(store.cancel('p1')).toBe(false);
      expect(custom.rejections).toHaveLength(1);
      expect(store.get('p1')).toBeUndefined();
      // A delivery after the cancel reaches nobody.
      expect(await store.deliver('p1', responseOf('p1'), async () => undefined, 100)).toBe(DeliveryOutcome.NoWaiter);
      expect(custom.offers).toEqual([]);
    });

    it('cancelSession cancels only that session’s bundles', async () => {
      const store = newStore();
      store.register(requestOf('p1', 'session-1'));
      store.register(requestOf('p2', 'session-1'));
      store.register(requestOf('p3', 'session-2'));
      const w1 = store.wait('p1', { timeoutMs: LONG });
      const w2 = store.wait('p2', { timeoutMs: LONG });
      const w3 = store.wait('p3', { timeoutMs: LONG });
      expect(store.cancelSession('session-1').sort()).toEqual(['p1', 'p2']);
      expect((await waitErrorOf(w1)).reason).toBe(WaitFailure.Cancelled);
      expect((await waitErrorOf(w2)).reason).toBe(WaitFailure.Cancelled);
      expect(await settled(w3)).toBe(false);
      expect(store.get('p3')).toBeDefined();
      expect(store.cancelSession('session-1')).toEqual([]);
      store.cancel('p3');
      expect((await waitErrorOf(w3)).reason).toBe(WaitFailure.Cancelled);
    });

    it('shutdown drains every entry', async () => {
      const store = newStore();
      store.register(requestOf('p1', 'session-1'));
      store.register(requestOf('p2', 'session-2'));
      const waits = [store.wait('p1', { timeoutMs: LONG }), store.wait('p2', { timeoutMs: LONG })];
      store.beforeApplicationShutdown();
      for (const wait of waits) expect((await waitErrorOf(wait)).reason).toBe(WaitFailure.Cancelled);
      expect(store.get('p1')).toBeUndefined();
      expect(store.get('p2')).toBeUndefined();
    });
  });

  describe('time bounds and abort', () => {
    it('the entry expires after its TTL, waking its waiters with TimedOut and dropping the entry', async () => {
      const store = newStore(40);
      store.register(requestOf('p1'));
      const started = Date.now();
      const error = await waitErrorOf(store.wait('p1', { timeoutMs: LONG }));
      expect(error.reason).toBe(WaitFailure.TimedOut);
      expect(Date.now() - started).toBeGreaterThanOrEqual(35);
      expect(store.get('p1')).toBeUndefined();
      expect(store.cancel('p1')).toBe(false);
    });

    it('a wait ends with TimedOut after its own bound; the entry stays live for other waiters', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const patient = store.wait('p1', { timeoutMs: LONG });
      const started = Date.now();
      const error = await waitErrorOf(store.wait('p1', { timeoutMs: 30 }));
      expect(error.reason).toBe(WaitFailure.TimedOut);
      expect(Date.now() - started).toBeGreaterThanOrEqual(25);
      expect(store.get('p1')).toBeDefined();
      expect(store.waiterCount('p1')).toBe(1);
      const response = responseOf('p1');
      expect(await store.deliver('p1', response, async () => undefined, 1000)).toBe(DeliveryOutcome.Delivered);
      await expect(patient).resolves.toBe(response);
    });

    it('an abort signal ends only that wait with Aborted', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const controller = new AbortController();
      const aborted = store.wait('p1', { timeoutMs: LONG, signal: controller.signal });
      const other = store.wait('p1', { timeoutMs: LONG });
      expect(store.waiterCount('p1')).toBe(2);
      controller.abort();
      expect((await waitErrorOf(aborted)).reason).toBe(WaitFailure.Aborted);
      expect(store.waiterCount('p1')).toBe(1);
      expect(await settled(other)).toBe(false);
      store.cancel('p1');
      expect((await waitErrorOf(other)).reason).toBe(WaitFailure.Cancelled);
    });

    it('an already aborted signal ends the wait at once and leaves no waiter behind', async () => {
      const store = newStore();
      store.register(requestOf('p1'));
      const error = await waitErrorOf(store.wait('p1', { timeoutMs: LONG, signal: AbortSignal.abort() }));
      expect(error.reason).toBe(WaitFailure.Aborted);
      expect(store.waiterCount('p1')).toBe(0);
    });

    it('waiting on a bundle without a live entry ends at once with Cancelled', async () => {
      const store = newStore();
      const started = Date.now();
      expect((await waitErrorOf(store.wait('missing', { timeoutMs: LONG }))).reason).toBe(WaitFailure.Cancelled);
      expect(Date.now() - started).toBeLessThan(1000);
    });
  });
});
