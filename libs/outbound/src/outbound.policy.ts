import type { LookupAddress } from 'node:dns';
import { Inject, Injectable } from '@nestjs/common';
import { HostResolver } from './host.resolver.js';
import { OutboundError } from './outbound.errors.js';
import { OUTBOUND_SETTINGS, type OutboundSettings } from './outbound.types.js';
import { isPrivateAddress, literalAddress } from './private-address.js';
import { checkTargetUrl, privateRefusal } from './target-url.js';

/** A target the policy let through: the URL, and the addresses to connect to (none for an IP literal). */
export interface ResolvedTarget {
  url: URL;
  addresses: LookupAddress[] | undefined;
}

/**
 * The one outbound target policy (resume webhooks, event webhooks): the URL's shape, then — for a
 * name — one resolution whose every address must be public unless private targets are allowed. The
 * caller connects to exactly the addresses checked here, so a name cannot be re-pointed at a private
 * address between the check and the connection (DNS rebinding).
 */
@Injectable()
export class OutboundPolicy {
  constructor(
    private readonly resolver: HostResolver,
    @Inject(OUTBOUND_SETTINGS) private readonly settings: OutboundSettings,
  ) {}

  /** A caller-supplied target, checked before it is stored: a 400 naming `field` when refused. */
  assertTarget(field: string, value: string | undefined): void {
    if (value === undefined || value === '') return;
    const checked = checkTargetUrl(value, this.settings.allowPrivateTargets);
    if ('refusal' in checked) throw OutboundError.invalidTarget(field, checked.refusal);
  }

  /** Checks `target` and resolves its name once (within `timeoutMs`); a string says why it is refused. */
  async resolve(target: string, timeoutMs: number): Promise<ResolvedTarget | string> {
    const allowPrivate = this.settings.allowPrivateTargets;
    const checked = checkTargetUrl(target, allowPrivate);
    if ('refusal' in checked) return `the target ${checked.refusal}`;
    const { url } = checked;
    if (literalAddress(url) !== undefined) return { url, addresses: undefined };
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`${url.hostname} was not resolved within ${timeoutMs} ms`), timeoutMs)));
    const resolved = await Promise.race([
      this.resolver.lookup(url.hostname).catch((error: unknown) => `${url.hostname} was not resolved (${error instanceof Error ? error.message : String(error)})`),
      bound,
    ]).finally(() => clearTimeout(timer));
    if (typeof resolved === 'string') return resolved;
    if (resolved.length === 0) return `${url.hostname} resolves to no address`;
    if (!allowPrivate && resolved.some((address) => isPrivateAddress(address.address))) return `${url.hostname} ${privateRefusal('resolves to')}`;
    return { url, addresses: resolved };
  }
}
