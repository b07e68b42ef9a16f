import { checkTargetUrl } from '#outbound';
import { WebhookError } from '../webhooks.errors.js';

/**
 * A subscription's target, as the outbound policy accepts it (docs/security.md, "Outbound calls"):
 * refused here when its shape or its IP literal is; a name is checked again, on every address it
 * resolves to, at each delivery.
 */
export function validTargetUrl(value: unknown, allowPrivate: boolean): string {
  if (typeof value !== 'string' || value.trim() === '') throw WebhookError.invalid('url is required');
  const checked = checkTargetUrl(value.trim(), allowPrivate);
  if ('refusal' in checked) throw WebhookError.invalid(`url ${checked.refusal}`);
  return checked.url.toString();
}
