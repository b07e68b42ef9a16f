/** An opaque keyset cursor: base64url of a JSON array of strings. */
export function encodeCursor(keys: readonly string[]): string {
  return Buffer.from(JSON.stringify(keys), 'utf8').toString('base64url');
}

/** The keys of a cursor made by encodeCursor with `arity` keys, or undefined when it is corrupt. */
export function decodeCursor(cursor: string, arity: number): string[] | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const keys: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(keys) || keys.length !== arity) return undefined;
    return keys.every((key) => typeof key === 'string' && key !== '') ? (keys as string[]) : undefined;
  } catch {
    return undefined;
  }
}
