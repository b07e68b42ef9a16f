import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { BundleRepository } from './bundle.repository.js';

/**
 * Start-up: claims whose delivery was never confirmed (the process died in between) are restored
 * to pending while still current, otherwise unmarked. If this fails, start-up fails.
 */
@Injectable()
export class DeliveryReconciler implements OnApplicationBootstrap {
  private readonly logger = new Logger('DeliveryReconciler');

  constructor(private readonly bundles: BundleRepository) {}

  async onApplicationBootstrap(): Promise<void> {
    const { restored, unmarked } = await this.bundles.reconcileUndelivered();
    if (restored.length + unmarked.length > 0) {
      this.logger.warn({ msg: 'reconciled undelivered clarification claims', restored, unmarked });
    }
  }
}
