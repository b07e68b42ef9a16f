import { checkTargetUrl } from './target-url.js';

const PRIVATE = 'points at a loopback, private or link-local address (allowed only with OUTBOUND_ALLOW_PRIVATE_TARGETS=true)';

describe('checkTargetUrl', () => {
  it.each(['https://hooks.example.com/parley', 'http://8.8.8.8:8080/x', 'http://[2001:4860:4860::8888]/'])('%s is accepted', (value) => {
    expect(checkTargetUrl(value, false)).toEqual({ url: new URL(value) });
  });

  it.each([
    'http://localhost:9000/',
    'http://localhost.:9000/',
    'http://api.localhost/',
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0/',
    'http://169.254.169.254/latest/meta-data',
    'http://10.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b:1::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
  ])('%s is refused by default, accepted when private targets are allowed', (value) => {
    expect(checkTargetUrl(value, false)).toEqual({ refusal: PRIVATE });
    expect(checkTargetUrl(value, true)).toEqual({ url: new URL(value) });
  });

  it.each([
    ['ftp://hooks.example.com/', 'must be an absolute http:// or https:// URL'],
    ['/relative', 'must be an absolute http:// or https:// URL'],
    ['https://user:secret@hooks.example.com/', 'must not carry credentials'],
    [`https://hooks.example.com/${'x'.repeat(2000)}`, 'must be at most 2000 characters'],
  ])('%s: %s, whatever the setting', (value, refusal) => {
    expect(checkTargetUrl(value, false)).toEqual({ refusal });
    expect(checkTargetUrl(value, true)).toEqual({ refusal });
  });
});
