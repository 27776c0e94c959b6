import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import dnsPacket from 'dns-packet';
import type { Answer } from 'dns-packet';

/** Records by lower-case name: what the server answers (a name with none gets NXDOMAIN). */
export type Zone = Record<string, Answer[]>;

export interface DnsServer {
  /** `127.0.0.1:port`, for a resolver's setServers. */
  address: string;
  /** Every question asked, as `TYPE name`. */
  asked: string[];
  close(): Promise<void>;
}

/**
 * A tiny authoritative DNS server over UDP on loopback for the tests: other domains' DNS cannot
 * be reached here. Answers the questions whose name and type the zone holds.
 */
export async function startDnsServer(zone: Zone): Promise<DnsServer> {
  const socket = dgram.createSocket('udp4');
  const asked: string[] = [];
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    asked.push(`${question.type} ${question.name}`);
    const records = zone[question.name.toLowerCase()];
    const answers = (records ?? []).filter((r) => r.type === question.type);
    const reply = dnsPacket.encode({
      id: query.id,
      type: 'response',
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (records ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers: answers.map((a) => ({ ...a, name: question.name, ttl: 60 }) as Answer),
    });
    socket.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(socket.address() as AddressInfo).port}`,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
