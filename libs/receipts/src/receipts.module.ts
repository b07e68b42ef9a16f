import { Module } from '@nestjs/common';
import { ReceiptsController } from './http/receipts.controller.js';
import { ReceiptKeyRepository } from './keys/receipt-key.repository.js';
import { ReceiptKeysService } from './keys/receipt-keys.service.js';
import { ReceiptService } from './verify/receipt.service.js';

/** Resolution receipts: the signing keys (PostgreSQL), signing, verification, the JWKS. */
@Module({
  controllers: [ReceiptsController],
  providers: [ReceiptKeyRepository, ReceiptKeysService, ReceiptService],
  exports: [ReceiptService, ReceiptKeysService],
})
export class ReceiptsModule {}
