/**
 * The one set of size limits on what callers supply, in characters. Every surface (REST DTOs, the
 * clarification creation rules, MCP tool schemas, the identity service) reads them from here.
 */
export const INPUT_LIMITS = {
  /** Any id a caller supplies: session, task, workspace, owner, question and option ids. */
  id: 200,
  /** Workspace, user and token names. */
  name: 200,
  /** Task and question titles. */
  title: 500,
  /** An option's label. */
  label: 500,
  /** A question's prompt. */
  prompt: 4000,
  /** An option's description. */
  description: 4000,
  /** An answer's custom_text and a rejection's reason, in code points (rule N8b). */
  answerText: 2000,
  /** Why an agent asks (a bundle's context). */
  context: 20_000,
  /** A session's resume_url. */
  url: 2000,
  /** A credential presented to sign in. */
  credential: 512,
} as const;

/**
 * Bounds on the shape of every JSON body, checked while it is parsed (before any transformation).
 * Far above anything a legitimate body needs: the deepest one (an MCP ask) nests 7 levels.
 */
export const JSON_BODY_LIMITS = {
  depth: 32,
  arrayItems: 1000,
  objectFields: 1000,
  stringCharacters: 100_000,
  fieldNameCharacters: 200,
} as const;
