import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { ApiPublic, Public } from '#common';
import { DatabaseListener } from '../connection/database-listener.js';
import { HealthRepository } from './health.repository.js';
import { ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';

class HealthDoc {
  @ApiProperty({ enum: ['ok', 'ready'] }) status!: string;
}

@ApiTags('operations')
@ApiPublic()
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthRepository,
    private readonly listener: DatabaseListener,
  ) {}

  /** Liveness: answers without touching the database, whatever its state. */
  @Get('healthz')
  @ApiOkResponse({ type: HealthDoc, description: 'Liveness (never touches the database)' })
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  /** Readiness: the database answers; a known outage answers 503 at once. */
  @Get('readyz')
  @ApiOkResponse({ type: HealthDoc, description: 'Readiness: the database answers' })
  async ready(): Promise<{ status: string }> {
    if (!this.listener.isReachable) throw new ServiceUnavailableException('database unreachable');
    try {
      await this.health.ping();
    } catch {
      throw new ServiceUnavailableException('database unreachable');
    }
    return { status: 'ready' };
  }
}
