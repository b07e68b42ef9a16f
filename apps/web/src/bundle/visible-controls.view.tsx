import type { ComponentChildren } from 'preact';

/**
 * Bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) reorder the text
 * shown around them: `invoice`, U+202E, `fdp.exe` reads as `invoiceexe.pdf`. Where a person approves
 * what they read, each is shown as its escape (`\u202E`), marked, and the rest of the text as is.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/gu;

/** The escape a control is shown as: `\u` and its four hex digits (uppercase), which JSON reads back as the control. */
function escapeOf(control: string): string {
  return `\\u${(control.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` with every bidirectional control shown as its marked escape. */
export function VisibleControls({ text }: { text: string }) {
  const pieces: ComponentChildren[] = [];
  let shown = 0;
  for (const match of text.matchAll(BIDI_CONTROLS)) {
    if (match.index > shown) pieces.push(text.slice(shown, match.index));
    const escape = escapeOf(match[0]);
    pieces.push(
      <mark class="bidi-control" title={`bidirectional control character ${escape}`}>
        {escape}
      </mark>,
    );
    shown = match.index + match[0].length;
  }
  if (shown < text.length) pieces.push(text.slice(shown));
  return <>{pieces}</>;
}
