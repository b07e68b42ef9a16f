import { type LookupAddress, promises as dns } from 'node:dns';
import { Injectable } from '@nestjs/common';

/** Every address a name resolves to, as the system resolver answers (the one place outbound calls resolve). */
@Injectable()
export class HostResolver {
  lookup(hostname: string): Promise<LookupAddress[]> {
    return dns.lookup(hostname, { all: true });
  }
}
