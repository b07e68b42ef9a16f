import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiClosedSchema } from '#common';
import type { RoutingView } from '../routing/routing.types.js';
import { userIdsWire } from '../wire/pending-bundle.wire.js';
import { clarificationWire } from '../wire/wire-openapi.js';
import { MAX_ESCALATION_SECONDS, MAX_ESCALATION_STEPS, MAX_REQUIRED_ANSWERS, MIN_ESCALATION_SECONDS } from '../routing/routing.validation.js';

/**
 * OpenAPI schemas of the clarification REST surface (request bodies are validated by the services; see
 * README). The parts of a request a service checks say its limits, and refuse fields they do not name.
 * The shapes every surface reports (the resolution, the pending bundle, the bundle's read, …) and the
 * questions as asked are not here: they are declared once in wire/ and referenced by name.
 */

type UserIds = NonNullable<RoutingView['answerers']>;

@ApiClosedSchema()
export class EscalationStepDoc {
  @ApiProperty({ type: 'integer', minimum: MIN_ESCALATION_SECONDS, maximum: MAX_ESCALATION_SECONDS, description: 'Seconds after the ask; strictly increasing from step to step' })
  after_seconds!: number;
  @ApiPropertyOptional({ description: 'true: emit a REMINDED event naming the eligible users' }) remind?: boolean;
  @ApiPropertyOptional({ allOf: [clarificationWire.ref(userIdsWire)], description: 'Replace the eligible answerers (an ESCALATED event)' }) reassign_to?: UserIds;
}

@ApiClosedSchema()
export class RoutingDoc {
  @ApiPropertyOptional({ allOf: [clarificationWire.ref(userIdsWire)], description: 'Only these users (and an admin) may answer; others who see the bundle get 403 NOT_ELIGIBLE' })
  answerers?: UserIds;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_REQUIRED_ANSWERS, default: 1, description: 'Identical answers from this many people resolve the bundle' })
  required_answers?: number;
  @ApiPropertyOptional({ type: [EscalationStepDoc], maxItems: MAX_ESCALATION_STEPS }) escalation?: EscalationStepDoc[];
}

export class PendingIdDoc {
  @ApiProperty() pending_id!: string;
}

export class SuccessDoc {
  @ApiProperty({ example: true }) success!: boolean;
}
