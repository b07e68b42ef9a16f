import { useState } from 'preact/hooks';
import type { TargetedEvent } from 'preact';
import { codePoints } from './code-points.js';
import { MAX_ANSWER_CODE_POINTS } from '../inbox/inbox.types.js';

interface Props {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  disabled: boolean;
  /** The server's message for this field (a 400), if any. */
  error: string;
}

/**
 * A free-text answer that stops at 2000 code points (W4, W4a). The limit is enforced by counting
 * code points on every edit — an edit that would pass it is undone and said so — never by
 * `maxLength`, which counts UTF-16 units and would stop at 1000 emoji without a word.
 */
export function AnswerText({ id, label, value, onChange, disabled, error }: Props) {
  const [refused, setRefused] = useState(0);
  const counterId = `${id}-count`;
  const messageId = `${id}-message`;

  const check = (field: HTMLTextAreaElement) => {
    const proposed = codePoints(field.value);
    if (proposed <= MAX_ANSWER_CODE_POINTS) {
      setRefused(0);
      onChange(field.value);
      return;
    }
    const caret = Math.max(0, (field.selectionStart ?? 0) - (field.value.length - value.length));
    field.value = value;
    field.setSelectionRange(caret, caret);
    setRefused(proposed);
  };

  const onInput = (event: TargetedEvent<HTMLTextAreaElement, Event>) => {
    if ((event as unknown as InputEvent).isComposing) return;
    check(event.currentTarget);
  };

  const count = codePoints(value);
  const message = refused
    ? `Answers are limited to ${MAX_ANSWER_CODE_POINTS} characters; that change would have made ${refused}, so it was not made.`
    : error;
  return (
    <div class="answer-text">
      <label for={id}>{label}</label>
      <textarea
        id={id}
        rows={3}
        value={value}
        disabled={disabled}
        onInput={onInput}
        onCompositionEnd={(event) => check(event.currentTarget)}
        aria-describedby={message ? `${counterId} ${messageId}` : counterId}
        aria-invalid={message ? true : undefined}
      />
      <div class="answer-text__meta">
        <span id={counterId} class={count >= MAX_ANSWER_CODE_POINTS ? 'counter counter--full' : 'counter'}>
          {count} / {MAX_ANSWER_CODE_POINTS}
        </span>
      </div>
      <p id={messageId} class="field-message" role="alert" hidden={!message}>
        {message}
      </p>
    </div>
  );
}
