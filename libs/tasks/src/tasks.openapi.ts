import { ApiProperty } from '@nestjs/swagger';
import { SessionState } from './session/session-state.js';

/** OpenAPI schemas of the task projection's responses (the shapes tasks.views.ts builds; a workspace and a task are declared in wire/). */
export class SessionDoc {
  @ApiProperty() id!: string;
  @ApiProperty() task_id!: string;
  @ApiProperty({ enum: SessionState, enumName: 'SessionState' }) state!: SessionState;
  @ApiProperty({ description: 'Where an answered bundle resumes the agent; "" ⇒ RESUME_WEBHOOK_URL or a queued prompt' }) resume_url!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class CreatedSessionDoc extends SessionDoc {
  @ApiProperty({ description: 'The session agent token (parley_sat_…), shown once: the agent authenticates /mcp/session with it' })
  agent_token!: string;
}

export class StartedTurnDoc {
  @ApiProperty() id!: string;
  @ApiProperty() session_id!: string;
  @ApiProperty({ format: 'date-time' }) started_at!: string;
}

export class TurnDoc extends StartedTurnDoc {
  @ApiProperty() task_id!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) completed_at!: string | null;
}

export class MessageDoc {
  @ApiProperty() id!: string;
  @ApiProperty() turn_id!: string;
  @ApiProperty({ example: 'clarification_request' }) type!: string;
  @ApiProperty({ example: 'agent' }) author_type!: string;
  @ApiProperty() content!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) metadata!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class MessagePageDoc {
  @ApiProperty({ type: [MessageDoc] }) messages!: MessageDoc[];
  @ApiProperty({ description: 'Pass as `cursor` for the next page; "" on the last page' }) next_cursor!: string;
}
