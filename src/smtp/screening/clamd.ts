import net from 'node:net';

/** What clamd said of a message: clean, or the name of the signature that matched. */
export type ClamdVerdict = { clean: true } | { clean: false; signature: string };

/** clamd could not be asked, or answered an error (a size limit, a database not loaded). */
export class ClamdUnavailable extends Error {}

/** How long one scan may take, connecting included; a sender waits up to 10 minutes for DATA's answer. */
const SCAN_TIMEOUT_MS = 60_000;
/** clamd's default StreamMaxLength is 25 MB; a chunk of 64 KB keeps each write small. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Scans a message with clamd's INSTREAM command (`tcp://host:port` or a socket path): each chunk
 * is sent after its length as 4 bytes big-endian, a zero length ends the stream, and clamd answers
 * one line ended by NUL: `stream: OK`, `stream: <signature> FOUND`, or `... ERROR`.
 */
export function scanWithClamd(address: string, message: Buffer): Promise<ClamdVerdict> {
  return new Promise((resolve, reject) => {
    const socket = connect(address);
    let answer = '';
    let settled = false;
    const finish = (error: Error | null, verdict?: ClamdVerdict) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve(verdict!);
    };
    socket.setTimeout(SCAN_TIMEOUT_MS, () =>
      finish(new ClamdUnavailable(`clamd at ${address} did not answer within ${SCAN_TIMEOUT_MS / 1000} s`)),
    );
    socket.on('error', (error) => finish(new ClamdUnavailable(`clamd at ${address}: ${error.message}`)));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('utf8');
      const end = answer.indexOf('\0');
      if (end >= 0) finish(...verdictOf(answer.slice(0, end)));
    });
    socket.on('end', () => finish(...verdictOf(answer)));
    socket.on('connect', () => {
      socket.write('zINSTREAM\0');
      for (let at = 0; at < message.length; at += CHUNK_BYTES) {
        const chunk = message.subarray(at, at + CHUNK_BYTES);
        const length = Buffer.alloc(4);
        length.writeUInt32BE(chunk.length);
        socket.write(length);
        socket.write(chunk);
      }
      socket.write(Buffer.alloc(4));
    });
  });
}

function connect(address: string): net.Socket {
  const tcp = /^tcp:\/\/(.+):(\d+)$/.exec(address);
  if (!tcp) return net.connect({ path: address });
  const host = tcp[1]!.replace(/^\[(.*)\]$/, '$1');
  return net.connect({ host, port: Number(tcp[2]) });
}

function verdictOf(line: string): [Error | null, ClamdVerdict?] {
  const text = line.replace(/\0/g, '').trim();
  const found = /^stream: (.+) FOUND$/.exec(text);
  if (found) return [null, { clean: false, signature: found[1]! }];
  if (text === 'stream: OK') return [null, { clean: true }];
  return [new ClamdUnavailable(`clamd answered ${JSON.stringify(text.slice(0, 200) || '(nothing)')}`)];
}
