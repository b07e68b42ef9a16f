import { Body, Controller, Delete, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { APP_CONFIG, type AppConfig } from '#config';
import { CreateBrowserSessionDto } from './identity.dto.js';
import { IdentityService } from './identity.service.js';
import { SESSION_COOKIE, sessionCookie } from '../caller/request-caller.js';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiJsonBody, ApiPublic, Public } from '#common';
import { SessionSuccessDoc } from './identity.openapi.js';

/** Exchanges a personal access token for an opaque, expiring browser session in an HttpOnly cookie. */
@ApiTags('auth')
@ApiPublic()
@Public()
@Controller('api/v1/auth/session')
export class BrowserSessionController {
  private readonly cookieOptions;

  constructor(
    private readonly identity: IdentityService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    const secure = config.publicUrl !== undefined && new URL(config.publicUrl).protocol === 'https:';
    this.cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax', secure } as const;
  }

  @Post()
  @ApiOkResponse({ type: SessionSuccessDoc, description: 'Sets the HttpOnly session cookie' })
  @ApiJsonBody()
  @ApiErrors(401, 403, 429)
  @HttpCode(200)
  async create(@Body() body: CreateBrowserSessionDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const { sessionId, maxAgeMs } = await this.identity.openBrowserSession(body.token);
    void reply.setCookie(SESSION_COOKIE, sessionId, { ...this.cookieOptions, maxAge: Math.floor(maxAgeMs / 1000) });
    return { success: true };
  }

  @Delete()
  @ApiOkResponse({ type: SessionSuccessDoc, description: 'Ends the session and clears its cookie' })
  @ApiErrors(403)
  @HttpCode(200)
  async remove(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.identity.endBrowserSession(sessionCookie(request));
    void reply.clearCookie(SESSION_COOKIE, this.cookieOptions);
    return { success: true };
  }
}
