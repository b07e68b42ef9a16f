import { Controller, Get } from '@nestjs/common';
import type { Caller } from '../caller/caller.js';
import { IdentityService } from './identity.service.js';
import { CurrentCaller } from '../caller/request-caller.js';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller } from '#common';
import { CallerViewDoc } from './identity.openapi.js';

/**
 * Who the browser is signed in as, and whether auth is enabled at all: 200 with the caller, or the
 * usual 401 when auth is enabled and there is no (valid) credential — the inbox then shows its
 * sign-in form. Not @Public: the caller is resolved exactly as for every other route.
 */
@ApiTags('auth')
@ApiCaller()
@Controller('api/v1/auth/session')
export class CurrentCallerController {
  constructor(private readonly identity: IdentityService) {}

  @Get()
  @ApiOkResponse({ type: CallerViewDoc })
  show(@CurrentCaller() caller: Caller) {
    return this.identity.describe(caller);
  }
}
