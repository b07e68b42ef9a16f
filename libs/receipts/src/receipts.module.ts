import { Module } from '@nestjs/common';
import { ReceiptRedemptionController, ReceiptsController } from './http/receipts.controller.js';
import { ReceiptKeyRepository } from './keys/receipt-key.repository.js';
import { ReceiptKeysService } from './keys/receipt-keys.service.js';
import { ReceiptRecordRepository } from './redeem/receipt-record.repository.js';
import { ReceiptRedemptionService } from './redeem/receipt-redemption.service.js';
import { ReceiptService } from './verify/receipt.service.js';

/** Resolution receipts: the signing keys (PostgreSQL), signing, verification, the JWKS. */
@Module({
  controllers: [ReceiptsController, ReceiptRedemptionController],
  providers: [ReceiptKeyRepository, ReceiptKeysService, ReceiptService, ReceiptRecordRepository, ReceiptRedemptionService],
  exports: [ReceiptService, ReceiptKeysService],
})
export class ReceiptsModule {}
