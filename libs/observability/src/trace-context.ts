/** W3C Trace Context: `version-traceid-parentid-flags`, lowercase hex; all-zero ids and version ff are invalid. */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** The trace id of an incoming `traceparent` header, or undefined when there is none or it is malformed. */
export function traceIdOf(traceparent: string | string[] | undefined): string | undefined {
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId, parentId] = match as unknown as [string, string, string, string];
  if (version === 'ff' || /^0+$/.test(traceId) || /^0+$/.test(parentId)) return undefined;
  if (version === '00' && match[0].length !== 55) return undefined;
  return traceId;
}
