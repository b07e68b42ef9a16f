import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { AnswerSummary } from './answer-summary.view.js';
import { AnswerText } from './answer-text.view.js';
import { BundleSourceContext } from './bundle-source.js';
import type { InboxAction } from '../inbox/inbox.state.js';
import { type Action, assertNever, assignedLine, type Bundle, prettyArguments, type ResolvedBy, type Settlement, type TaskSummary } from '../inbox/inbox.types.js';
import { ResolvedByLine, useResolvedBy } from './resolved-by.view.js';
import { type RespondBody, type RespondOutcome, SKIP } from './respond.api.js';
import { SignedOutError } from '../http.js';
import { VisibleControls } from './visible-controls.view.js';

interface Props {
  pendingId: string;
  /** The bundle as the inbox holds it, when it is in the list. */
  listed: Bundle | undefined;
  /** How the bundle stopped being answerable, if the feed said so. */
  settlement: Settlement | undefined;
  tasks: TaskSummary[];
  dispatch: (action: InboxAction) => void;
  onSignedOut: () => void;
}

type Loaded = { kind: 'loading' } | { kind: 'missing' } | { kind: 'failed'; message: string } | { kind: 'ready'; bundle: Bundle };

/** Where a submission stands: being edited, in flight, or finished by one of the R10 outcomes. */
type Phase =
  | { kind: 'editing' }
  | { kind: 'sending'; body: RespondBody }
  | { kind: 'failed'; body: RespondBody; message: string }
  | { kind: 'done'; outcome: Extract<RespondOutcome, { kind: 'won' | 'lost' | 'inactive' | 'not-found' | 'voted' | 'not-eligible' }> };

const NO_LONGER_ACTIVE: Record<Extract<Settlement, { kind: 'closed' }>['reason'], string> = {
  SUPERSEDED: 'The agent moved on to a new turn, so this question is no longer active.',
  EXPIRED: 'The agent’s session ended, so this question is no longer active.',
  CANCELLED: 'The question was cancelled, so it is no longer active.',
  INACTIVE: 'This question is no longer active.',
};

function useBundle(pendingId: string, listed: Bundle | undefined, onSignedOut: () => void): Loaded {
  const { fetchBundle } = useContext(BundleSourceContext);
  const [loaded, setLoaded] = useState<Loaded>(listed ? { kind: 'ready', bundle: listed } : { kind: 'loading' });
  useEffect(() => {
    if (loaded.kind === 'ready' && loaded.bundle.pendingId === pendingId) return;
    if (listed) {
      setLoaded({ kind: 'ready', bundle: listed });
      return;
    }
    let current = true;
    fetchBundle(pendingId).then(
      (bundle) => current && setLoaded(bundle ? { kind: 'ready', bundle } : { kind: 'missing' }),
      (error: unknown) => {
        if (error instanceof SignedOutError) onSignedOut();
        else if (current) setLoaded({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
      },
    );
    return () => {
      current = false;
    };
  }, [pendingId, listed]);
  return loaded;
}

export function BundleView({ pendingId, listed, settlement, tasks, dispatch, onSignedOut }: Props) {
  const loaded = useBundle(pendingId, listed, onSignedOut);
  const task = loaded.kind === 'ready' ? tasks.find((candidate) => candidate.id === loaded.bundle.taskId) : undefined;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [pendingId]);

  return (
    <section class="bundle" aria-labelledby="bundle-heading">
      <p>
        <a href="#/">← Back to the inbox</a>
      </p>
      <h1 id="bundle-heading" ref={heading} tabIndex={-1}>
        {task?.title || 'Question from an agent'}
      </h1>
      {loaded.kind === 'loading' && <p aria-live="polite">Loading…</p>}
      {loaded.kind === 'missing' && (
        <div class="notice notice--closed" role="status">
          <h2>Not found</h2>
          <p>There is no such question, or it is not yours to see.</p>
        </div>
      )}
      {loaded.kind === 'failed' && (
        <p class="notice notice--error" role="alert">
          Could not load this question: {loaded.message}
        </p>
      )}
      {loaded.kind === 'ready' && (
        <BundleForm bundle={loaded.bundle} settlement={settlement} dispatch={dispatch} onSignedOut={onSignedOut} />
      )}
    </section>
  );
}

export interface FormProps {
  bundle: Bundle;
  settlement: Settlement | undefined;
  dispatch: (action: InboxAction) => void;
  onSignedOut: () => void;
}

/** The form of one bundle — the inbox's and the question app's (apps/web/src/mcp-app), answering through the context's source. */
export function BundleForm({ bundle, settlement, dispatch, onSignedOut }: FormProps) {
  const { respond } = useContext(BundleSourceContext);
  const [selected, setSelected] = useState<Record<string, string[]>>({});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [phase, setPhase] = useState<Phase>({ kind: 'editing' });
  const inFlight = useRef(false);
  const alreadyAnswered = bundle.questions.some((question) => question.status !== 'pending');

  const send = async (body: RespondBody) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setPhase({ kind: 'sending', body });
    setFieldErrors({});
    const outcome = await respond(bundle.pendingId, body);
    inFlight.current = false;
    switch (outcome.kind) {
      case 'won':
      case 'lost':
        dispatch({
          type: 'settled',
          pendingId: bundle.pendingId,
          settlement: { kind: 'resolved', status: outcome.status, response: outcome.response, by: outcome.kind === 'won' ? 'you' : 'elsewhere' },
          source: 'respond',
        });
        setPhase({ kind: 'done', outcome });
        return;
      case 'inactive':
        dispatch({ type: 'settled', pendingId: bundle.pendingId, settlement: { kind: 'closed', reason: 'INACTIVE' }, source: 'respond' });
        setPhase({ kind: 'done', outcome });
        return;
      case 'not-found':
      case 'voted':
      case 'not-eligible':
        setPhase({ kind: 'done', outcome });
        return;
      case 'invalid': {
        const field = outcome.field;
        const key = field === 'form' || field === 'reject_reason' ? field : `q${field.question}`;
        setFieldErrors({ [key]: outcome.message });
        setPhase({ kind: 'editing' });
        return;
      }
      case 'retryable':
        setPhase({ kind: 'failed', body, message: `Not delivered: ${outcome.message}.` });
        return;
      case 'network':
        setPhase({ kind: 'failed', body, message: 'Parley could not be reached. Nothing you typed was lost.' });
        return;
      case 'signed-out':
        onSignedOut();
        return;
      default:
        assertNever(outcome);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const missing = bundle.questions.findIndex(
      (question) => (selected[question.questionId] ?? []).length === 0 && !(texts[question.questionId] ?? '').trim(),
    );
    if (missing >= 0) {
      setFieldErrors({ [`q${missing}`]: 'Choose an option or write an answer (or skip the whole bundle).' });
      document.getElementById(`question-${missing}`)?.focus();
      return;
    }
    void send({
      answers: bundle.questions.map((question) => ({
        question_id: question.questionId,
        selected_options: question.options.map((option) => option.optionId).filter((id) => (selected[question.questionId] ?? []).includes(id)),
        custom_text: texts[question.questionId] ?? '',
      })),
      rejected: false,
    });
  };

  const toggle = (questionId: string, optionId: string) =>
    setSelected((now) => {
      const chosen = now[questionId] ?? [];
      return { ...now, [questionId]: chosen.includes(optionId) ? chosen.filter((id) => id !== optionId) : [...chosen, optionId] };
    });

  if (phase.kind === 'done') return <Outcome bundle={bundle} outcome={phase.outcome} />;
  if (phase.kind !== 'sending' && settlement) return <Settled bundle={bundle} settlement={settlement} />;
  if (alreadyAnswered) {
    const resolved = bundle.questions.find((question) => question.status === 'answered' || question.status === 'rejected');
    if (resolved) return <AlreadyResolved bundle={bundle} rejected={resolved.status === 'rejected'} />;
    return <Settled bundle={bundle} settlement={{ kind: 'closed', reason: 'INACTIVE' }} />;
  }

  if (!bundle.eligible) return <NotEligible bundle={bundle} />;

  const sending = phase.kind === 'sending';
  return (
    <form class="bundle__form" onSubmit={submit} noValidate aria-busy={sending}>
      {bundle.routing && <p class="bundle__assigned">{assignedLine(bundle.routing)}</p>}
      {bundle.action && <ActionView action={bundle.action} />}
      {bundle.context && <p class="bundle__context">{bundle.context}</p>}
      {bundle.questions.map((question, index) => (
        <fieldset key={question.questionId} id={`question-${index}`} class="question" tabIndex={-1}>
          <legend>{question.title || `Question ${index + 1}`}</legend>
          <p class="question__prompt">{question.prompt}</p>
          <div class="options">
            {question.options.map((option) => {
              const checked = (selected[question.questionId] ?? []).includes(option.optionId);
              return (
                <label key={option.optionId} class={checked ? 'option option--selected' : 'option'}>
                  <input
                    type="checkbox"
                    checked={checked}
                    disabled={sending}
                    onChange={() => toggle(question.questionId, option.optionId)}
                  />
                  <span class="option__label">{option.label}</span>
                  {option.description && <span class="option__description">{option.description}</span>}
                </label>
              );
            })}
          </div>
          <AnswerText
            id={`answer-${index}`}
            label={`In your own words, for “${question.title || `question ${index + 1}`}” (optional)`}
            value={texts[question.questionId] ?? ''}
            onChange={(value) => setTexts((now) => ({ ...now, [question.questionId]: value }))}
            disabled={sending}
            error={fieldErrors[`q${index}`] ?? ''}
          />
        </fieldset>
      ))}
      {(fieldErrors.form || fieldErrors.reject_reason) && (
        <p class="notice notice--error" role="alert">
          {fieldErrors.form || fieldErrors.reject_reason}
        </p>
      )}
      {phase.kind === 'failed' && (
        <div class="notice notice--error" role="alert">
          <p>{phase.message}</p>
          <button type="button" onClick={() => void send(phase.body)}>
            Try again
          </button>
        </div>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={sending}>
          {sending ? 'Sending…' : 'Submit answers'}
        </button>
        <button type="button" disabled={sending} onClick={() => void send(SKIP)}>
          Skip
        </button>
      </div>
    </form>
  );
}

/**
 * The action an answer authorizes, above the questions: its name and its arguments, pretty-printed —
 * bidirectional controls shown as marked escapes, so the text reads as what is approved.
 */
function ActionView({ action }: { action: Action }) {
  return (
    <section class="bundle__action" aria-label="Action to authorize">
      <p>
        Answering authorizes:{' '}
        <code class="bundle__action-name">
          <VisibleControls text={action.name} />
        </code>
      </p>
      <pre class="bundle__action-arguments">
        <VisibleControls text={prettyArguments(action)} />
      </pre>
    </section>
  );
}

function Outcome({ bundle, outcome }: { bundle: Bundle; outcome: Extract<Phase, { kind: 'done' }>['outcome'] }) {
  switch (outcome.kind) {
    case 'won':
      return (
        <div class="notice notice--done" role="status">
          <h2>{outcome.status === 'rejected' ? 'Skipped' : 'Answered'}</h2>
          <p>{outcome.status === 'rejected' ? 'The agent was told you skipped these questions.' : 'Your answer was sent to the agent.'}</p>
          <Winner pendingId={bundle.pendingId} known={undefined} rejected={outcome.status === 'rejected'} />
          {outcome.status === 'answered' && <AnswerSummary questions={bundle.questions} response={outcome.response} />}
        </div>
      );
    case 'lost':
      return <Settled bundle={bundle} settlement={{ kind: 'resolved', status: outcome.status, response: outcome.response, by: 'elsewhere' }} />;
    case 'inactive':
      return <Settled bundle={bundle} settlement={{ kind: 'closed', reason: 'INACTIVE' }} />;
    case 'not-found':
      return (
        <div class="notice notice--closed" role="status">
          <h2>Not found</h2>
          <p>There is no such question, or it is not yours to see.</p>
        </div>
      );
    case 'voted':
      return (
        <div class="notice notice--done" role="status">
          <h2>Vote recorded</h2>
          <p>
            Your answer counts as one of {outcome.requiredAnswers} identical answers needed ({outcome.votes} so far). The agent is told once
            they agree.
          </p>
        </div>
      );
    case 'not-eligible':
      return <NotEligible bundle={bundle} />;
    default:
      return assertNever(outcome);
  }
}

function Settled({ bundle, settlement }: { bundle: Bundle; settlement: Settlement }) {
  if (settlement.kind === 'closed') {
    return (
      <div class="notice notice--closed" role="status">
        <h2>No longer active</h2>
        <p>{NO_LONGER_ACTIVE[settlement.reason]}</p>
      </div>
    );
  }
  return (
    <div class="notice notice--done" role="status">
      <h2>{settlement.by === 'you' ? 'Answered' : 'Someone else answered first'}</h2>
      <p>{settlement.by === 'you' ? 'Your answer was sent to the agent.' : 'This is the answer the agent received:'}</p>
      <Winner pendingId={bundle.pendingId} known={settlement.resolvedBy} rejected={settlement.status === 'rejected'} />
      <AnswerSummary questions={bundle.questions} response={settlement.response} />
    </div>
  );
}

/** Who won, and through which surface (docs/api/rest.md, "Who answered"). */
function Winner({ pendingId, known, rejected }: { pendingId: string; known: ResolvedBy | null | undefined; rejected: boolean }) {
  return <ResolvedByLine resolvedBy={useResolvedBy(pendingId, known)} rejected={rejected} />;
}

/** A bundle opened after it was resolved: who resolved it (its answers are the agent's to read). */
function AlreadyResolved({ bundle, rejected }: { bundle: Bundle; rejected: boolean }) {
  return (
    <div class="notice notice--done" role="status">
      <h2>{rejected ? 'Already skipped' : 'Already answered'}</h2>
      <Winner pendingId={bundle.pendingId} known={bundle.resolvedBy} rejected={rejected} />
    </div>
  );
}

/** A routed bundle the signed-in person sees but may not answer: who it is assigned to, and no form. */
function NotEligible({ bundle }: { bundle: Bundle }) {
  return (
    <div class="notice notice--closed" role="status">
      <h2>Assigned to someone else</h2>
      <p>{assignedLine(bundle.routing) || 'This question is assigned to other people.'}</p>
      <p>You can see it, but only the people it is assigned to can answer it.</p>
    </div>
  );
}
