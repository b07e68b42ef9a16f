import { Module } from '@nestjs/common';
import { ClarificationModule } from '../../clarification/src/index.js';
import { SessionMcpController } from './session-mcp.controller.js';

@Module({
  imports: [ClarificationModule],
  controllers: [SessionMcpController],
})
export class McpModule {}
