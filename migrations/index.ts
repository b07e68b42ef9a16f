import { InitialSchema1764489600000 } from './1764489600000-initial-schema.js';
import { QuestionEvents1764576000000 } from './1764576000000-question-events.js';
import { ReplicaDelivery1764662400000 } from './1764662400000-replica-delivery.js';
import { ExactlyOnce1764800000000 } from './1764800000000-exactly-once.js';
import { BrowserSessions1765000000000 } from './1765000000000-browser-sessions.js';
import { CommandReceipts1765100000000 } from './1765100000000-command-receipts.js';
import { BeyondThePeers1765400000000 } from './1765400000000-beyond-the-peers.js';
import { ListKeysetIndexes1765500000000 } from './1765500000000-list-keyset-indexes.js';
import { Routing1765600000000 } from './1765600000000-routing.js';
import { SharedRateLimits1765700000000 } from './1765700000000-shared-rate-limits.js';
import { Receipts1765800000000 } from './1765800000000-receipts.js';
import { InsiderTrust1765900000000 } from './1765900000000-insider-trust.js';
import { CommandReceiptsPerCaller1765910000000 } from './1765910000000-command-receipts-per-caller.js';
import { McpAppSurface1765920000000 } from './1765920000000-mcp-app-surface.js';
import { Chat1766100000000 } from './1766100000000-chat.js';

/** Every migration, in order. Listed explicitly so the ESM build needs no glob loading. */
export const MIGRATIONS = [
  InitialSchema1764489600000,
  QuestionEvents1764576000000,
  ReplicaDelivery1764662400000,
  ExactlyOnce1764800000000,
  BrowserSessions1765000000000,
  CommandReceipts1765100000000,
  BeyondThePeers1765400000000,
  ListKeysetIndexes1765500000000,
  Routing1765600000000,
  SharedRateLimits1765700000000,
  Receipts1765800000000,
  InsiderTrust1765900000000,
  CommandReceiptsPerCaller1765910000000,
  McpAppSurface1765920000000,
  Chat1766100000000,
];
