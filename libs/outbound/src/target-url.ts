import { INPUT_LIMITS } from '#common';
import { isLocalName, isPrivateAddress, literalAddress } from './private-address.js';
import { ALLOW_PRIVATE_TARGETS_VARIABLE } from './outbound.types.js';

/** A URL the policy accepts, or why it does not (a phrase that follows the field's name). */
export type TargetCheck = { url: URL } | { refusal: string };

/**
 * The shape half of the policy, which needs no resolver: an absolute http(s) URL without credentials,
 * at most INPUT_LIMITS.url characters, and — unless private targets are allowed — no `localhost` name
 * and no private IP literal. Names are checked again, on every address they resolve to, at each call.
 */
export function checkTargetUrl(value: string, allowPrivate: boolean): TargetCheck {
  if (value.length > INPUT_LIMITS.url) return { refusal: `must be at most ${INPUT_LIMITS.url} characters` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { refusal: 'must be an absolute http:// or https:// URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { refusal: 'must be an absolute http:// or https:// URL' };
  if (url.username || url.password) return { refusal: 'must not carry credentials' };
  if (!allowPrivate) {
    const literal = literalAddress(url);
    if (isLocalName(url.hostname) || (literal !== undefined && isPrivateAddress(literal))) return { refusal: privateRefusal('points at') };
  }
  return { url };
}

/** The refusal of a loopback or private target, saying which setting would allow it. */
export function privateRefusal(what: string): string {
  return `${what} a loopback, private or link-local address (allowed only with ${ALLOW_PRIVATE_TARGETS_VARIABLE}=true)`;
}
