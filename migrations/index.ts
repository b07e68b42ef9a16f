import { InitialSchema1764489600000 } from './1764489600000-initial-schema.js';
import { QuestionEvents1764576000000 } from './1764576000000-question-events.js';
import { ReplicaDelivery1764662400000 } from './1764662400000-replica-delivery.js';
import { CommandReceipts1765100000000 } from './1765100000000-command-receipts.js';

/** Every migration, in order. Listed explicitly so the ESM build needs no glob loading. */
export const MIGRATIONS = [InitialSchema1764489600000, QuestionEvents1764576000000, ReplicaDelivery1764662400000, CommandReceipts1765100000000];
