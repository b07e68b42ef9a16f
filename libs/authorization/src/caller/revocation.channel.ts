/** The NOTIFY channel a revocation (token revoked, browser session ended, membership removed) is announced on, in its transaction. */
export const REVOCATION_CHANNEL = 'parley_revoked';
