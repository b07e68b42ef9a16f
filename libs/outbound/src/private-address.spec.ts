import { isLocalName, isPrivateAddress, literalAddress } from './private-address.js';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['0.0.0.0', 'this network'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'IPv6 loopback'],
    ['::', 'unspecified'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['fe80::1', 'IPv6 link-local'],
    ['fd12:3456::1', 'unique local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata address'],
    ['64:ff9b::7f00:1', 'NAT64 of 127.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of 169.254.169.254'],
    ['64:ff9b::808:808', 'NAT64 of a public address: the gateway is on our network'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['2002:a9fe:a9fe::1', '6to4 of 169.254.169.254'],
    ['2002:808:808::1', '6to4 of a public address: the relay is reached through our network'],
  ])('%s is refused (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '2001:4860:4860::8888', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9c::1', '2003::1'])(
    '%s is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );

  it('a name is no address', () => {
    expect(isPrivateAddress('localhost')).toBe(false);
  });
});

describe('literalAddress', () => {
  it.each([
    ['http://127.0.0.1:8080/x', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://hooks.example.com/', undefined],
  ])('%s ⇒ %s', (url, expected) => {
    expect(literalAddress(new URL(url))).toBe(expected);
  });
});

describe('isLocalName', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'a.b.localhost.'])('%s is local', (name) => {
    expect(isLocalName(name)).toBe(true);
  });
  it.each(['localhost.example.com', 'mylocalhost', 'example.com'])('%s is not', (name) => {
    expect(isLocalName(name)).toBe(false);
  });
});
