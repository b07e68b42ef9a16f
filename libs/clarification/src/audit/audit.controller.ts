import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { type Caller, CurrentCaller } from '#authorization';
import { ApiCaller, ApiErrors, PageQueryDto } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { AuditService } from './audit.service.js';

/** The audit trail of one bundle: every attempt to resolve it, with its outcome. */
@ApiTags('clarification')
@ApiCaller()
@Controller('api/v1/clarification')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get(':id/audit')
  @ApiOkResponse({ description: 'Every attempt to resolve the bundle, with its outcome, oldest first' })
  @ApiErrors(400, 404, 429)
  @RateLimited(RateLimitKind.Lists)
  list(@CurrentCaller() caller: Caller, @Param('id') pendingId: string, @Query() query: PageQueryDto) {
    return this.audit.list(caller, pendingId, query);
  }
}
