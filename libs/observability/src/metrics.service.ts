import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** How a resume prompt left this process: a webhook answered 2xx, refused (or timed out), or the prompt was queued. */
export type ResumeHandoffOutcome = 'accepted' | 'refused' | 'queued';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics (prom-client), one registry per application. Counters and
 * histograms are moved where the event happens (a thin call from the service that does it); gauges
 * read their source when scraped, so keeping them costs nothing between scrapes.
 */
@Injectable()
export class ParleyMetrics {
  readonly registry = new Registry();
  private readonly resolutions = new Counter({
    name: 'parley_resolutions_total',
    help: 'Resolutions (answers and rejections) by surface and outcome: answered/rejected (won), replayed (lost to a winner), or the error code',
    labelNames: ['surface', 'outcome'] as const,
    registers: [this.registry],
  });
  private readonly resolutionSeconds = new Histogram({
    name: 'parley_resolution_duration_seconds',
    help: 'Time ResolveBundle took per call, by surface',
    labelNames: ['surface'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly resumeHandoffs = new Counter({
    name: 'parley_resume_handoffs_total',
    help: 'Resume hand-offs of answered bundles by outcome (accepted, refused, queued)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  private readonly eventFeedLag = new Histogram({
    name: 'parley_event_feed_lag_seconds',
    help: 'From an event being written (its transaction) to its batch being handed to the subscriber streams',
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly lifecycleEvents = new Counter({
    name: 'parley_lifecycle_events_total',
    help: 'Lifecycle changes this process committed (asked, answered, voted on, dismissed, cancelled, expired, detached, superseded, messages updated), by event name',
    labelNames: ['event'] as const,
    registers: [this.registry],
  });
  private readonly httpRequests = new Counter({
    name: 'parley_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'parley_' });
  }

  /** Starts timing one resolution; the returned function records its outcome. */
  startResolution(surface: string): (outcome: string) => void {
    const stop = this.resolutionSeconds.startTimer({ surface });
    return (outcome) => {
      stop();
      this.resolutions.inc({ surface, outcome });
    };
  }

  resumeHandoff(outcome: ResumeHandoffOutcome): void {
    this.resumeHandoffs.inc({ outcome });
  }

  /** A batch of the event feed was handed to the streams: how long each event took to get there. */
  eventsDispatched(createdAt: readonly Date[], now = Date.now()): void {
    for (const at of createdAt) this.eventFeedLag.observe(Math.max(0, now - at.getTime()) / 1000);
  }

  /** Shows each lifecycle event's series at 0 until it first happens. */
  lifecycleEventsKnown(events: readonly string[]): void {
    for (const event of events) this.lifecycleEvents.inc({ event }, 0);
  }

  lifecycleEvent(event: string): void {
    this.lifecycleEvents.inc({ event });
  }

  httpRequest(method: string, route: string, status: number): void {
    this.httpRequests.inc({ method, route, status: String(status) });
  }

  /** A gauge whose value is read from `read` at every scrape (a failed read leaves it out of that scrape). */
  gauge<Label extends string>(
    name: string,
    help: string,
    read: () => Promise<Array<{ labels?: Partial<Record<Label, string>>; value: number }>> | Array<{ labels?: Partial<Record<Label, string>>; value: number }>,
    labelNames: readonly Label[] = [],
  ): void {
    new Gauge<Label>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const sample of await read()) {
            if (sample.labels) this.set(sample.labels, sample.value);
            else this.set(sample.value);
          }
        } catch {
          // A source that cannot be read now (the database is down) is absent from this scrape.
        }
      },
    });
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}
