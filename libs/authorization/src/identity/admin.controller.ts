import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { AdminOnly } from '../caller/auth.guard.js';
import { CreateTokenDto, CreateUserDto } from './identity.dto.js';
import { IdentityService } from './identity.service.js';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { CreatedTokenDoc, CreatedUserDoc, RevokedTokenDoc } from './identity.openapi.js';

@ApiTags('admin')
@ApiCaller()
@ApiErrors(404)
@AdminOnly()
@Controller('api/v1/admin')
export class AdminController {
  constructor(private readonly identity: IdentityService) {}

  @Post('users')
  @ApiCreatedResponse({ type: CreatedUserDoc })
  @ApiJsonBody()
  async createUser(@Body() body: CreateUserDto): Promise<{ id: string; name: string }> {
    const user = await this.identity.createUser(body.name);
    return { id: user.id, name: user.name };
  }

  @Post('users/:id/tokens')
  @ApiCreatedResponse({ type: CreatedTokenDoc, description: 'The token is shown once; only its SHA-256 is stored' })
  @ApiJsonBody()
  async createToken(@Param('id') userId: string, @Body() body: CreateTokenDto): Promise<{ id: string; token: string }> {
    const { row, token } = await this.identity.createToken(userId, body.name ?? '');
    return { id: row.id, token };
  }

  @Post('tokens/:id/revoke')
  @ApiOkResponse({ type: RevokedTokenDoc })
  @HttpCode(200)
  async revokeToken(@Param('id') tokenId: string): Promise<{ id: string; revoked_at: string }> {
    const row = await this.identity.revokeToken(tokenId);
    return { id: row.id, revoked_at: (row.revoked_at as Date).toISOString() };
  }
}
