import { parseHost, RequestHosts } from './request-hosts.js';

type HostsConfig = ConstructorParameters<typeof RequestHosts>[0];

const hosts = (config: Partial<HostsConfig> = {}) =>
  new RequestHosts({ authMode: 'disabled', publicUrl: undefined, allowedHosts: [], corsOrigins: [], ...config });

describe('parseHost', () => {
  it.each([
    ['localhost', { name: 'localhost', port: undefined }],
    ['Example.COM:8080', { name: 'example.com', port: '8080' }],
    ['  example.com  ', { name: 'example.com', port: undefined }],
    ['[::1]:3000', { name: '[::1]', port: '3000' }],
    ['[::ffff:127.0.0.1]', { name: '[::ffff:127.0.0.1]', port: undefined }],
    ['127.0.0.1:65535', { name: '127.0.0.1', port: '65535' }],
  ])('parseHost(%j)', (raw, expected) => {
    expect(parseHost(raw)).toEqual(expected);
  });

  it.each(['', ':80', 'example.com:', 'example.com:123456', 'a:b:c', '::1', '[::1', 'example.com:80a', '[example.com]'])(
    'parseHost(%j) is no host',
    (raw) => {
      expect(parseHost(raw)).toBeUndefined();
    },
  );
});

describe('RequestHosts.isServed (the Host check against DNS rebinding)', () => {
  it('serves every Host with authentication on and no ALLOWED_HOSTS (a rebound page holds no credential)', () => {
    const policy = hosts({ authMode: 'enabled' });
    expect(policy.enforced).toBe(false);
    expect(policy.isServed('attacker.example')).toBe(true);
    expect(policy.isServed(undefined)).toBe(true);
  });

  it('with AUTH_MODE=disabled serves only loopback names, on any port', () => {
    const policy = hosts();
    expect(policy.enforced).toBe(true);
    for (const served of ['localhost', 'LOCALHOST:3000', '127.0.0.1:8080', '127.9.9.9', '[::1]:80']) expect(policy.isServed(served)).toBe(true);
    for (const refused of ['rebind.attacker.example', 'localhost.attacker.example', '10.0.0.1', '0.0.0.0', '', 'local host']) {
      expect(policy.isServed(refused)).toBe(false);
    }
    expect(policy.isServed(undefined)).toBe(false);
  });

  it("serves PUBLIC_URL's host at its port only", () => {
    const policy = hosts({ publicUrl: 'https://parley.example.com:8443/base' });
    expect(policy.isServed('parley.example.com:8443')).toBe(true);
    expect(policy.isServed('Parley.Example.com:8443')).toBe(true);
    expect(policy.isServed('parley.example.com')).toBe(false);
    expect(policy.isServed('parley.example.com:9443')).toBe(false);
  });

  it('serves ALLOWED_HOSTS: an exact name on any port, a name:port on that port, a .domain with its subdomains', () => {
    const policy = hosts({ authMode: 'enabled', allowedHosts: ['inbox.internal', 'api.internal:9000', '.corp.example'] });
    expect(policy.enforced).toBe(true);
    expect(policy.isServed('inbox.internal:1234')).toBe(true);
    expect(policy.isServed('api.internal:9000')).toBe(true);
    expect(policy.isServed('api.internal:9001')).toBe(false);
    expect(policy.isServed('corp.example')).toBe(true);
    expect(policy.isServed('a.b.corp.example:443')).toBe(true);
    expect(policy.isServed('evilcorp.example')).toBe(false);
    expect(policy.isServed('sub.inbox.internal')).toBe(false);
    expect(policy.isServed('localhost')).toBe(true);
  });
});

describe('RequestHosts.isAllowedOrigin (the Origin check of state-changing requests)', () => {
  it("allows PUBLIC_URL's origin and the request's own host", () => {
    const policy = hosts({ publicUrl: 'https://parley.example.com' });
    expect(policy.isAllowedOrigin('https://parley.example.com', 'elsewhere', true)).toBe(true);
    expect(policy.isAllowedOrigin('http://127.0.0.1:3000', '127.0.0.1:3000', true)).toBe(true);
    expect(policy.isAllowedOrigin('http://localhost:3000', 'LOCALHOST:3000', true)).toBe(true);
  });

  it('treats another loopback port as another origin (cookies are not scoped by port)', () => {
    expect(hosts().isAllowedOrigin('http://127.0.0.1:5173', '127.0.0.1:3000', true)).toBe(false);
    expect(hosts().isAllowedOrigin('http://localhost:3000', '127.0.0.1:3000', true)).toBe(false);
  });

  it("counts PUBLIC_URL's host only at PUBLIC_URL's own scheme", () => {
    const policy = hosts({ publicUrl: 'https://parley.example.com' });
    expect(policy.isAllowedOrigin('http://parley.example.com', 'internal:3000', true)).toBe(false);
  });

  it('allows origins on a host ALLOWED_HOSTS names, whatever the request Host', () => {
    const policy = hosts({ allowedHosts: ['.corp.example', 'api.internal:9000'] });
    expect(policy.isAllowedOrigin('https://inbox.corp.example', '127.0.0.1:3000', true)).toBe(true);
    expect(policy.isAllowedOrigin('http://api.internal:9000', '127.0.0.1:3000', true)).toBe(true);
    expect(policy.isAllowedOrigin('http://api.internal:9001', '127.0.0.1:3000', true)).toBe(false);
  });

  it('allows a CORS origin only when the session cookie does not authenticate the request', () => {
    const policy = hosts({ corsOrigins: ['https://app.partner.example'] });
    expect(policy.isAllowedOrigin('https://app.partner.example', '127.0.0.1:3000', false)).toBe(true);
    expect(policy.isAllowedOrigin('https://app.partner.example', '127.0.0.1:3000', true)).toBe(false);
    const any = hosts({ corsOrigins: ['*'] });
    expect(any.isAllowedOrigin('https://anything.example', '127.0.0.1:3000', false)).toBe(true);
    expect(any.isAllowedOrigin('https://anything.example', '127.0.0.1:3000', true)).toBe(false);
  });

  it('refuses "null" and garbage origins, and a cross-site origin without a Host', () => {
    const policy = hosts({ authMode: 'enabled' });
    expect(policy.isAllowedOrigin('null', 'localhost:3000', true)).toBe(false);
    expect(policy.isAllowedOrigin('not a url', 'localhost:3000', true)).toBe(false);
    expect(policy.isAllowedOrigin('https://attacker.example', undefined, true)).toBe(false);
  });
});
