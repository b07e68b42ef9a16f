/**
 * The default branch of every exhaustive switch: the compiler refuses a call while a case is left
 * unhandled, and a value the types ruled out fails loudly at run time. No imports, so the browser
 * bundle (apps/web) uses this same helper.
 */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value) ?? String(value)}`);
}
