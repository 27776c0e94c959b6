import net from 'node:net';

/**
 * Whether a client address is in MAILROOM_SMTP_TRUSTED_NETWORKS (entries `address/prefix`, as the
 * config gives them). An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, what a socket bound to
 * `::` reports for an IPv4 client) is matched as the IPv4 address it carries.
 */
export function trustedNetworks(networks: string[]): (address: string) => boolean {
  const list = new net.BlockList();
  for (const network of networks) {
    const [address = '', prefix] = network.split('/');
    list.addSubnet(address, Number(prefix), net.isIPv4(address) ? 'ipv4' : 'ipv6');
  }
  return (address) => {
    const ipv4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (ipv4) return list.check(ipv4, 'ipv4');
    const family = net.isIP(address);
    return family !== 0 && list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  };
}
