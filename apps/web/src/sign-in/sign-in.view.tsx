import { useEffect, useRef, useState } from 'preact/hooks';
import { signIn } from './session.api.js';

/** AUTH_MODE=enabled and no session: exchange a personal access token for the session cookie. */
export function SignInView({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!token.trim()) {
      setMessage('Paste a personal access token (parley_pat_…).');
      return;
    }
    setBusy(true);
    const result = await signIn(token.trim()).catch(() => ({ ok: false as const, message: 'Parley could not be reached; try again.' }));
    setBusy(false);
    if (result.ok) {
      setToken('');
      onSignedIn();
    } else {
      setMessage(result.message);
    }
  };

  return (
    <section class="sign-in" aria-labelledby="sign-in-heading">
      <h1 id="sign-in-heading">Sign in</h1>
      <p>Paste a personal access token. It is exchanged for a session cookie and not stored by this page.</p>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <label for="token">Personal access token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autoComplete="off"
          spellcheck={false}
          value={token}
          onInput={(event) => setToken(event.currentTarget.value)}
          aria-invalid={message ? true : undefined}
          aria-describedby={message ? 'token-message' : undefined}
        />
        <p id="token-message" class="field-message" role="alert" hidden={!message}>
          {message}
        </p>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
