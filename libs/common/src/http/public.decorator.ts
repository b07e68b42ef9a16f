import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'parley:public';

/** Explicit opt-out of authentication: every other route requires an identity when auth is enabled. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
