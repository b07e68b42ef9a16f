import { Module } from '@nestjs/common';
import { ClarificationModule } from '#clarification';
import { TasksModule } from '#tasks';
import { ExternalMcpController } from './external/external-mcp.controller.js';
import { McpAdmission } from './mcp-admission.js';
import { SessionMcpController } from './session/session-mcp.controller.js';

@Module({
  imports: [ClarificationModule, TasksModule],
  controllers: [ExternalMcpController, SessionMcpController],
  providers: [McpAdmission],
})
export class McpModule {}
