import { Injectable } from '@nestjs/common';
import { OutboundPolicy } from './outbound.policy.js';
import type { OutboundReply, PostOptions } from './outbound.types.js';
import { pinnedPost } from './pinned-request.js';

/** Every outbound POST of the server: through the target policy, to the addresses it checked. */
@Injectable()
export class OutboundClient {
  constructor(private readonly policy: OutboundPolicy) {}

  async post(target: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<OutboundReply> {
    const deadline = Date.now() + options.timeoutMs;
    const resolved = await this.policy.resolve(target, options.timeoutMs);
    if (typeof resolved === 'string') return { kind: 'unreached', reason: resolved };
    const timeoutMs = Math.max(1, deadline - Date.now());
    return pinnedPost(resolved.url, resolved.addresses, body, headers, { ...options, timeoutMs });
  }
}
