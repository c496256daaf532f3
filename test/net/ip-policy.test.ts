import { checkPublicAddress } from '../../src/core/net/ip-policy';

describe('checkPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.254',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.10', // documentation
    '198.18.0.1', // benchmarking
    '240.0.0.1', // reserved
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254', // AWS IMDS over IPv6
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::ffff:0:7f00:1', // SIIT-translated
    '64:ff9b::7f00:1', // NAT64 of 127.0.0.1
    '64:ff9b::a9fe:a9fe', // NAT64 of 169.254.169.254
    '64:ff9b:1::808:808', // local-use NAT64
    '2002:7f00:1::1', // 6to4 of 127.0.0.1
    '2002:c0a8:101::', // 6to4 of 192.168.1.1
    '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo, client 127.0.0.1 (bit-inverted)
    '2001:0:a00:1:8000:63bf:f7f7:f7f7', // Teredo, server 10.0.0.1
    '::7f00:1', // deprecated IPv4-compatible
    '2001:db8::1', // documentation
    'not-an-ip',
  ])('refuses %s', (address) => {
    const verdict = checkPublicAddress(address);
    expect(verdict.ok).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '172.32.0.1', // just outside 172.16/12
    '100.128.0.1', // just outside 100.64/10
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo: server 65.54.227.120, client 8.8.8.8
  ])('allows public %s', (address) => {
    expect(checkPublicAddress(address)).toEqual({ ok: true });
  });

  it('names the embedded address in the reason', () => {
    const verdict = checkPublicAddress('::ffff:7f00:1');
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toMatch(/127\.0\.0\.1 is loopback/);
  });
});
