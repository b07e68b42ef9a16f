import { Module } from '@nestjs/common';
import { ClarificationModule } from '../../clarification/src/index.js';
import { TasksModule } from '../../tasks/src/index.js';
import { ExternalMcpController } from './external-mcp.controller.js';
import { McpAdmission } from './mcp-admission.js';
import { SessionMcpController } from './session-mcp.controller.js';

@Module({
  imports: [ClarificationModule, TasksModule],
  controllers: [ExternalMcpController, SessionMcpController],
  providers: [McpAdmission],
})
export class McpModule {}
