import { useState } from 'preact/hooks';
import { type ConfirmOutcome, confirmChatLink } from './chat-link.api.js';

const PLATFORM_NAMES: Record<string, string> = { slack: 'Slack', telegram: 'Telegram' };

/**
 * `#/link/<code>`: a link asked for in chat (`/parley link`, `/link`). Nothing happens until the
 * signed-in person confirms: then that chat account answers as them.
 */
export function ChatLinkView({ code, onSignedOut }: { code: string; onSignedOut: () => void }) {
  const [outcome, setOutcome] = useState<ConfirmOutcome | { kind: 'asking' } | { kind: 'sending' }>({ kind: 'asking' });
  const confirm = async () => {
    setOutcome({ kind: 'sending' });
    const result = await confirmChatLink(code).catch((): ConfirmOutcome => ({ kind: 'refused', message: 'Parley could not be reached.' }));
    if (result.kind === 'signed-out') onSignedOut();
    setOutcome(result);
  };
  switch (outcome.kind) {
    case 'asking':
    case 'sending':
      return (
        <section class="notice">
          <h2>Link a chat account</h2>
          <p>A chat account asked to answer as you. Confirm only if you typed the link command yourself, just now.</p>
          <button type="button" disabled={outcome.kind === 'sending'} onClick={() => void confirm()}>
            Link it to me
          </button>
        </section>
      );
    case 'linked':
      return (
        <section class="notice notice--done" role="status">
          <h2>Linked</h2>
          <p>
            {PLATFORM_NAMES[outcome.platform] ?? outcome.platform} account {outcome.accountId} now answers as you. <a href="#/">Back to the inbox</a>
          </p>
        </section>
      );
    case 'unknown':
      return (
        <p class="notice notice--error" role="alert">
          This link is unknown, already used or expired: ask for a new one in chat.
        </p>
      );
    case 'refused':
      return (
        <p class="notice notice--error" role="alert">
          {outcome.message}
        </p>
      );
    case 'signed-out':
      return null;
  }
}
