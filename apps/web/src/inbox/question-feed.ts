import { type Client, createClient } from 'graphql-ws/client';
import { graphql, SignedOutError } from '../http.js';
import type { QuestionEvent } from './inbox.types.js';

const EVENTS = `subscription Feed($after: String) { questionEvents(after: $after) {
  id type pendingId taskId workspaceId
  response { answers { questionId selectedOptions customText } rejected rejectReason }
  resolvedBy { kind userId name surface at } } }`;

const CURSOR = `query FeedCursor { questionEventsCursor }`;

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5000;

export type FeedState = 'connecting' | 'live' | 'reconnecting';

export interface FeedListener {
  event(event: QuestionEvent): void;
  state(state: FeedState): void;
  /** The page must (re)read the pending list: the feed starts over from a position read just now. */
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
 * Without such an id — the first connection, or a cursor the server refused — it first reads where
 * the feed stands, then asks the page to re-list, then subscribes from that position: whatever
 * happens after the position reaches the feed, whatever happened before it is in the list.
 * Returns a function that stops the feed.
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

  const signOut = () => {
    stopped = true;
    close();
    listener.signedOut();
  };

  const retry = () => {
    close();
    if (stopped) return;
    listener.state('reconnecting');
    const delay = Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** failures);
    failures += 1;
    retryTimer = setTimeout(connect, delay * (0.75 + Math.random() / 2));
  };

  const subscribe = (after: string) => {
    const current = createClient({
      url: feedUrl(),
      lazy: false,
      retryAttempts: 0,
      on: {
        connected: () => {
          failures = 0;
          listener.state('live');
        },
      },
    });
    client = current;
    current.subscribe<{ questionEvents: WireEvent }>(
      { query: EVENTS, variables: { after } },
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
            signOut();
            return;
          }
          // The server refused the cursor (too old, or of a format it no longer reads): start over.
          // Anything else (the database away: UNAVAILABLE) resumes from the same cursor.
          if (codes.includes('VALIDATION_ERROR')) lastEventId = undefined;
          if (client === current) retry();
        },
        complete: () => {
          if (client === current) retry();
        },
      },
    );
  };

  const connect = () => {
    if (lastEventId !== undefined) {
      subscribe(lastEventId);
      return;
    }
    graphql<{ questionEventsCursor: string }>(CURSOR).then(
      ({ questionEventsCursor }) => {
        if (stopped) return;
        lastEventId = questionEventsCursor;
        listener.resync();
        subscribe(questionEventsCursor);
      },
      (error: unknown) => {
        if (error instanceof SignedOutError) signOut();
        else retry();
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
