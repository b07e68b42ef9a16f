export { HostResolver } from './host.resolver.js';
export { OutboundClient } from './outbound.client.js';
export { OutboundModule } from './outbound.module.js';
export { OutboundPolicy } from './outbound.policy.js';
export type { OutboundReply, OutboundSettings } from './outbound.types.js';
export { checkTargetUrl } from './target-url.js';
