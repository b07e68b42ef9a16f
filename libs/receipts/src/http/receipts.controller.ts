import { Body, Controller, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AcceptsSessionAgent, type Caller, CurrentCaller } from '#authorization';
import { ApiCaller, ApiErrors, ApiJsonBody, ApiPublic, Public } from '#common';
import { RateLimited, RateLimitKind } from '#rate-limit';
import { ReceiptKeysService } from '../keys/receipt-keys.service.js';
import { ReceiptRedemptionService } from '../redeem/receipt-redemption.service.js';
import { ReceiptService } from '../verify/receipt.service.js';
import { JwksDoc, RedeemReceiptDto, RedemptionDoc, ReceiptVerdictDoc, VerifyReceiptDto } from './receipts.dto.js';

/** How long a client may cache the key set: a rotated-in key is used at once, so not long. */
const JWKS_MAX_AGE_SECONDS = 300;

/**
 * Receipts, for anyone who holds one (docs/receipts.md): the public keys that sign them and a
 * verification route. Both are public — explicitly, no credential is asked for.
 */
@ApiTags('receipts')
@ApiPublic()
@Public()
@Controller()
export class ReceiptsController {
  constructor(
    private readonly receipts: ReceiptService,
    private readonly keys: ReceiptKeysService,
  ) {}

  @Get('.well-known/jwks.json')
  @ApiOkResponse({ type: JwksDoc, description: 'The public keys receipts are signed with (RFC 7517), retired keys until their receipts expired' })
  @Header('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`)
  jwks() {
    return this.keys.jwks();
  }

  @Post('api/v1/receipts/verify')
  @HttpCode(200)
  @ApiOkResponse({ type: ReceiptVerdictDoc, description: '{valid: true, claims} or {valid: false, reason}' })
  @ApiJsonBody()
  @ApiErrors(429)
  @RateLimited(RateLimitKind.Verifications)
  verify(@Body() body: VerifyReceiptDto) {
    return this.receipts.verifyRequest(body.receipt, body.action, body.expect);
  }
}

/** Spending a receipt: only the identity that asked may, once per receipt across every replica. */
@ApiTags('receipts')
@ApiCaller()
@Controller('api/v1/receipts')
export class ReceiptRedemptionController {
  constructor(private readonly redemptions: ReceiptRedemptionService) {}

  @Post('redeem')
  @HttpCode(200)
  @ApiOkResponse({ type: RedemptionDoc, description: '{redeemed: true, claims} once; then {redeemed: false, reason: "already_redeemed"}' })
  @ApiJsonBody()
  @ApiErrors(403, 429)
  @AcceptsSessionAgent()
  @RateLimited(RateLimitKind.Verifications)
  redeem(@CurrentCaller() caller: Caller, @Body() body: RedeemReceiptDto) {
    return this.redemptions.redeem(caller, body.receipt, body.action, body.expect);
  }
}
