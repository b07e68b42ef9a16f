import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiCaller, ApiErrors, ApiJsonBody } from '#common';
import { AdminOnly } from '../caller/auth.guard.js';
import type { Caller } from '../caller/caller.js';
import { CurrentCaller } from '../caller/request-caller.js';
import { AddMemberDto, AddedMemberDoc, MemberListDoc, RemovedMemberDoc } from './members.dto.js';
import { MembershipService } from './membership.service.js';

@ApiTags('admin')
@ApiCaller()
@ApiErrors(400, 404)
@AdminOnly()
@Controller('api/v1/admin/workspaces/:id/members')
export class MembersController {
  constructor(private readonly members: MembershipService) {}

  @Post()
  @ApiOkResponse({ type: AddedMemberDoc, description: 'Idempotent: adding an existing member changes nothing (added: false)' })
  @ApiJsonBody()
  @HttpCode(200)
  async add(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Body() body: AddMemberDto) {
    const { member, added } = await this.members.add(caller, workspaceId, body.user_id);
    return { ...member, added };
  }

  @Get()
  @ApiOkResponse({ type: MemberListDoc, description: 'The members, oldest first (the owner is not listed)' })
  async list(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string) {
    return { workspace_id: workspaceId, members: await this.members.list(caller, workspaceId) };
  }

  @Delete(':userId')
  @ApiOkResponse({ type: RemovedMemberDoc, description: 'removed: false when the user was no member' })
  @HttpCode(200)
  remove(@CurrentCaller() caller: Caller, @Param('id') workspaceId: string, @Param('userId') userId: string) {
    return this.members.remove(caller, workspaceId, userId, 'params.userId');
  }
}
