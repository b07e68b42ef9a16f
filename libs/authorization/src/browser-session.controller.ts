import { Body, Controller, Delete, HttpCode, Post, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../../common/src/index.js';
import { CreateBrowserSessionDto } from './identity.dto.js';
import { IdentityService } from './identity.service.js';
import { SESSION_COOKIE } from './request-caller.js';

const COOKIE_OPTIONS = { path: '/', httpOnly: true, sameSite: 'lax' } as const;

/** Exchanges a personal access token for the browser's HttpOnly session cookie. */
@Public()
@Controller('api/v1/auth/session')
export class BrowserSessionController {
  constructor(private readonly identity: IdentityService) {}

  @Post()
  @HttpCode(200)
  async create(@Body() body: CreateBrowserSessionDto, @Res({ passthrough: true }) reply: FastifyReply) {
    await this.identity.requireValidToken(body.token);
    void reply.setCookie(SESSION_COOKIE, body.token, COOKIE_OPTIONS);
    return { success: true };
  }

  @Delete()
  @HttpCode(200)
  remove(@Res({ passthrough: true }) reply: FastifyReply) {
    void reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS);
    return { success: true };
  }
}
