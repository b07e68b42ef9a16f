/** The claim statement among captured ones: the CTE whose `claimed` step updates the bundle's rows. */
export const CLAIM_STATEMENT = /\bclaimed AS \(\s*UPDATE task_session_messages\b/;
