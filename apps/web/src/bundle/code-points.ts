/** N8b/W4a: the server counts code points (runes), never UTF-16 units; so does the page. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
