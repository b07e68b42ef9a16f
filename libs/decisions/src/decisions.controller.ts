import { Body, Controller, Get, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { type Caller, CurrentCaller } from '#authorization';
import { CommandService } from './command.service.js';
import { httpStatusOf } from './decisions.errors.js';
import { CommandRequestDoc, CommandResultDoc, OptionRefsSelectionDoc, TextSelectionDoc } from './decisions.openapi.js';
import { PendingInteractionsService } from './decision/pending-interactions.service.js';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ErrorBodyDto } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';

/** A status both the command service (its envelope) and the HTTP boundary before it (`{error, code}`) answer. */
const envelopeOrError = { oneOf: [{ $ref: getSchemaPath(ErrorBodyDto) }, { $ref: getSchemaPath(CommandResultDoc) }] };

/** The chat-connector surface: poll what is pending, answer it with one semantic command. */
@ApiTags('decisions')
@ApiExtraModels(CommandResultDoc, OptionRefsSelectionDoc, TextSelectionDoc)
@ApiCaller()
@Controller('api/v1')
export class DecisionsController {
  constructor(
    private readonly pending: PendingInteractionsService,
    private readonly commands: CommandService,
  ) {}

  @Get('pending-interactions')
  @ApiOkResponse({ description: 'The pending interactions of the connector contract (docs/api/commands.md)', schema: { type: 'object', additionalProperties: true } })
  @ApiErrors(429)
  @RateLimited(RateLimitKind.Lists)
  list(@CurrentCaller() caller: Caller) {
    return this.pending.list(caller);
  }

  /** The body is the envelope exactly as stored, so a replay is byte for byte the original. */
  @Post('commands')
  @ApiBody({ type: CommandRequestDoc, description: 'A semantic command of the connector contract (docs/api/commands.md)' })
  @ApiOkResponse({ type: CommandResultDoc, description: 'The command result envelope (dry_run, accepted); a replay is byte for byte the original' })
  @ApiResponse({ status: 202, type: CommandResultDoc, description: 'Not final yet (status pending, disposition in_progress): retry with the same request_id' })
  // The service answers every outcome with the envelope (decisions.errors.ts, httpStatusOf): 404, 409
  // and 422 only it answers; 400, 403, 500 and 503 the HTTP boundary answers too, with `{error, code}`.
  @ApiResponse({ status: 404, type: CommandResultDoc, description: 'unknown_worker: missing, closed, or not yours' })
  @ApiResponse({ status: 409, type: CommandResultDoc, description: 'decision_not_pending, answer_in_progress, duplicate_request, already_voted' })
  @ApiResponse({ status: 422, type: CommandResultDoc, description: 'unsupported_decision: a decision no command can answer' })
  @ApiResponse({ status: 400, schema: envelopeOrError, description: 'invalid_request, invalid_selection (the envelope); a body that is not JSON, too complex or not storable (`{error, code}`)' })
  @ApiResponse({ status: 403, schema: envelopeOrError, description: 'not_eligible (the envelope); a cookie-authenticated write from another origin (CSRF) or a Host not served (`{error, code}`)' })
  @ApiResponse({ status: 500, schema: envelopeOrError, description: 'request_state_uncertain: the send may have landed, never resent (the envelope); an internal error (`{error, code, request_id}`)' })
  @ApiResponse({ status: 503, schema: envelopeOrError, description: 'backend_unavailable: nothing was sent (the envelope); the database unavailable (`{error, code}`); retry shortly' })
  @ApiErrors(413, 415, 429)
  // Every command is an answer attempt (known worker or not): the answers budget, as REST respond spends it.
  @RateLimited(RateLimitKind.Answers)
  async submit(@CurrentCaller() caller: Caller, @Body() body: unknown, @Res() reply: FastifyReply): Promise<void> {
    const result = await this.commands.submit(caller, body);
    await reply.status(httpStatusOf(result.status)).type('application/json; charset=utf-8').send(result.body);
  }
}
