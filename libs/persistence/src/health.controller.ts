import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import { Public } from '../../common/src/index.js';
import { HealthRepository } from './health.repository.js';

@Public()
@Controller()
export class HealthController {
  constructor(private readonly health: HealthRepository) {}

  @Get('healthz')
  @HttpCode(200)
  live(): { status: string } {
    return { status: 'ok' };
  }

  @Get('readyz')
  async ready(): Promise<{ status: string }> {
    try {
      await this.health.ping();
    } catch {
      throw new ServiceUnavailableException('database unreachable');
    }
    return { status: 'ready' };
  }
}
