/**
 * Text PostgreSQL cannot hold in `text`/`jsonb`: NUL, and lone UTF-16 surrogates (which Node would
 * otherwise encode as U+FFFD, silently changing what the caller sent).
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, as the end of a sentence naming the field; undefined when it can. */
export function unstorableTextReason(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000), which cannot be stored';
  if (LONE_SURROGATE.test(text)) return 'contains an unpaired UTF-16 surrogate, which cannot be stored';
  return undefined;
}

/** `body.a[0]["odd key"]`: how an error names a place inside a value. */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/**
 * The first string (or field name) under `value` that cannot be stored, as an error message naming
 * its path; undefined when every string can be stored. Recursion is bounded by the caller (parsed
 * bodies are depth-checked first; params, query strings and GraphQL arguments are shallow).
 */
export function findUnstorableText(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') {
    const reason = unstorableTextReason(value);
    return reason && `${path} ${reason}`;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findUnstorableText(value[index], childPath(path, index));
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      const keyReason = unstorableTextReason(key);
      if (keyReason) return `${path} has a field name that ${keyReason}`;
      const found = findUnstorableText(child, childPath(path, key));
      if (found) return found;
    }
  }
  return undefined;
}
