import { type AppConfig, isLoopbackHost } from '#config';

/** A `Host` header split into its name (lower-cased, IPv6 in brackets) and port, or undefined when it is no host. */
export function parseHost(raw: string): { name: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(raw.trim().toLowerCase());
  if (!match?.[1]) return undefined;
  return { name: match[1], port: match[2] };
}

interface HostEntry {
  name: string;
  /** Undefined ⇒ any port. */
  port: string | undefined;
  /** `.example.com`: the domain and every subdomain. */
  domain: boolean;
}

function entryOf(pattern: string): HostEntry | undefined {
  const domain = pattern.startsWith('.');
  const parsed = parseHost(domain ? pattern.slice(1) : pattern);
  return parsed && { ...parsed, domain };
}

function matches(entry: HostEntry, host: { name: string; port: string | undefined }): boolean {
  if (entry.port !== undefined && entry.port !== host.port) return false;
  return entry.domain ? host.name === entry.name || host.name.endsWith(`.${entry.name}`) : host.name === entry.name;
}

/**
 * Which `Host` names this server answers and which browser origins may send it state-changing
 * requests. With AUTH_MODE=disabled every request acts as the unscoped identity, so a page whose own
 * name resolves to 127.0.0.1 (DNS rebinding) would otherwise be same-origin with the server: only the
 * loopback names, PUBLIC_URL's host and ALLOWED_HOSTS are served then. With authentication on, a
 * rebound page holds no credential; the check applies there only when ALLOWED_HOSTS is set.
 */
export class RequestHosts {
  /** Whether a `Host` outside the allowed names is refused. */
  readonly enforced: boolean;
  /** PUBLIC_URL's host and ALLOWED_HOSTS: the names served. */
  private readonly served: HostEntry[];
  /** ALLOWED_HOSTS alone: a page on PUBLIC_URL's host counts only at PUBLIC_URL's own origin (its scheme). */
  private readonly listed: HostEntry[];
  private readonly publicOrigin: string | undefined;
  private readonly corsOrigins: ReadonlySet<string>;

  constructor(config: Pick<AppConfig, 'authMode' | 'publicUrl' | 'allowedHosts' | 'corsOrigins'>) {
    this.enforced = config.authMode === 'disabled' || config.allowedHosts.length > 0;
    const publicHost = config.publicUrl === undefined ? [] : [new URL(config.publicUrl).host];
    this.listed = config.allowedHosts.map(entryOf).filter((entry) => entry !== undefined);
    this.served = [...publicHost.map(entryOf).filter((entry) => entry !== undefined), ...this.listed];
    this.publicOrigin = config.publicUrl === undefined ? undefined : new URL(config.publicUrl).origin;
    this.corsOrigins = new Set(config.corsOrigins);
  }

  /** Whether a request whose `Host` header is `raw` is served (always, when the check is not enforced). */
  isServed(raw: string | undefined): boolean {
    if (!this.enforced) return true;
    return raw !== undefined && this.isAllowedHost(raw);
  }

  /**
   * Whether a browser page at `origin` may send a state-changing request that arrived with `Host:
   * host`: PUBLIC_URL's origin, the request's own host (same-origin — a host the check above has let
   * through, when it is enforced), a host ALLOWED_HOSTS names, and — unless the session cookie would
   * authenticate it (CORS never carries credentials here) — a CORS origin. Another loopback port is
   * another origin: cookies are not scoped by port, so only the Origin tells them apart.
   */
  isAllowedOrigin(origin: string, host: string | undefined, cookieAuthenticated: boolean): boolean {
    if (origin === this.publicOrigin) return true;
    if (!cookieAuthenticated && (this.corsOrigins.has(origin) || this.corsOrigins.has('*'))) return true;
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      return false; // "null" (sandboxed frames, privacy redirects) and garbage alike
    }
    if (host !== undefined && originHost === host.toLowerCase()) return true;
    const parsed = parseHost(originHost);
    return parsed !== undefined && this.listed.some((entry) => matches(entry, parsed));
  }

  private isAllowedHost(raw: string): boolean {
    const host = parseHost(raw);
    if (!host) return false;
    return isLoopbackHost(host.name) || this.served.some((entry) => matches(entry, host));
  }
}
