import { type Client, createClient } from 'graphql-ws/client';
import type { QuestionEvent } from './inbox.types.js';

const EVENTS = `subscription Feed($after: String) { questionEvents(after: $after) {
  id type pendingId taskId workspaceId
  response { answers { questionId selectedOptions customText } rejected rejectReason } } }`;

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5000;

export type FeedState = 'connecting' | 'live' | 'reconnecting';

export interface FeedListener {
  event(event: QuestionEvent): void;
  state(state: FeedState): void;
  /** The page must (re)read the pending list: a first connection, or one that could not resume. */
  resync(): void;
  signedOut(): void;
}

interface WireEvent extends Omit<QuestionEvent, 'response'> {
  response: { answers: Array<{ questionId: string; selectedOptions: string[]; customText: string }>; rejected: boolean; rejectReason: string } | null;
}

function fromWire(event: WireEvent): QuestionEvent {
  const response = event.response && {
    answers: event.response.answers.map((answer) => ({
      question_id: answer.questionId,
      selected_options: answer.selectedOptions,
      custom_text: answer.customText,
    })),
    rejected: event.response.rejected,
    reject_reason: event.response.rejectReason,
  };
  return { ...event, response };
}

function graphqlErrorCodes(error: unknown): string[] {
  if (!Array.isArray(error)) return [];
  return error.map((entry: { extensions?: { code?: string } }) => entry.extensions?.code ?? '');
}

function feedUrl(): string {
  return `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`;
}

/**
 * The live question feed over graphql-ws. One connection at a time; when it drops, the next one
 * resumes with `after` = the last event id received (an opaque string), so nothing is missed.
 * Without such an id — the first connection, or a cursor the server refused — it subscribes live
 * and asks the page to re-list. Returns a function that stops the feed.
 */
export function startQuestionFeed(listener: FeedListener): () => void {
  let lastEventId: string | undefined;
  let failures = 0;
  let stopped = false;
  let client: Client | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const close = () => {
    const previous = client;
    client = undefined;
    void previous?.dispose();
  };

  const retry = () => {
    close();
    if (stopped) return;
    listener.state('reconnecting');
    const delay = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
    failures += 1;
    retryTimer = setTimeout(connect, delay * (0.75 + Math.random() / 2));
  };

  const connect = () => {
    const resumeFrom = lastEventId;
    const current = createClient({
      url: feedUrl(),
      lazy: false,
      retryAttempts: 0,
      on: {
        connected: () => {
          failures = 0;
          listener.state('live');
          if (resumeFrom === undefined) listener.resync();
        },
      },
    });
    client = current;
    current.subscribe<{ questionEvents: WireEvent }>(
      // `after` is left out, not null, when there is nothing to resume: the server reads null as a bad cursor.
      { query: EVENTS, variables: resumeFrom === undefined ? {} : { after: resumeFrom } },
      {
        next: (result) => {
          const event = result.data?.questionEvents;
          if (!event) return;
          lastEventId = event.id;
          listener.event(fromWire(event));
        },
        error: (error) => {
          const codes = graphqlErrorCodes(error);
          if (codes.includes('UNAUTHENTICATED')) {
            stopped = true;
            close();
            listener.signedOut();
            return;
          }
          // The server refused the cursor (too old, or of a format it no longer reads): start over live.
          if (codes.length > 0) lastEventId = undefined;
          if (client === current) retry();
        },
        complete: () => {
          if (client === current) retry();
        },
      },
    );
  };

  listener.state('connecting');
  connect();
  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    close();
  };
}
