import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { AddressLimitsHooks } from './address-limits.hooks.js';
import { RateLimitInterceptor } from './rate-limit.interceptor.js';
import { RateLimitRepository } from './rate-limit.repository.js';
import { RateLimitService } from './rate-limit.service.js';

@Global()
@Module({
  providers: [RateLimitRepository, RateLimitService, AddressLimitsHooks, { provide: APP_INTERCEPTOR, useClass: RateLimitInterceptor }],
  exports: [RateLimitService],
})
export class RateLimitModule {}
