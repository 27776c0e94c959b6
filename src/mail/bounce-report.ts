/** What a delivery status notification (RFC 3464) says failed for good, read from its raw source. */
export interface BounceReport {
  /** The Message-ID of the message that bounced, `<...>`, from the returned headers. */
  messageId: string;
  /** Recipients whose Action is `failed` with a 5.x.x Status, lower-case. */
  failed: string[];
}

const HEAD_END = /\r?\n\r?\n/;

/**
 * Reads a bounce: a `multipart/report; report-type=delivery-status` whose
 * `message/delivery-status` part lists recipients failed for good, with the returned message's
 * headers (`text/rfc822-headers` or `message/rfc822`) naming its Message-ID. Anything else,
 * or a report missing either, answers null. Only the first 256 KB are read: a report is small.
 */
export function readBounceReport(raw: Buffer): BounceReport | null {
  // Most mail is no report: its head alone (in the first 64 KB) says so, before more is read.
  const start = raw.subarray(0, 64 * 1024).toString('latin1');
  const headEnd = start.search(HEAD_END);
  const head = (headEnd < 0 ? start : start.slice(0, headEnd)).replace(/\r?\n[ \t]+/g, ' ');
  if (!/^content-type:\s*multipart\/report\s*;[^\n]*report-type\s*=\s*"?delivery-status/im.test(head))
    return null;
  const text = raw.subarray(0, 256 * 1024).toString('latin1');
  const status =
    /^content-type:\s*message\/delivery-status[^\n]*\n(?:[^\n]+\n)*?\r?\n([\s\S]*?)(?=\r?\n--)/im.exec(text);
  if (!status) return null;
  const failed = status[1]!
    .split(/\r?\n\r?\n/)
    .map((block) => fieldsOf(block))
    .filter((f) => /^failed$/i.test(f.get('action') ?? '') && /^5\./.test(f.get('status') ?? ''))
    .map((f) =>
      (f.get('final-recipient') ?? '')
        .replace(/^rfc822\s*;\s*/i, '')
        .trim()
        .toLowerCase(),
    )
    .filter((address) => address.includes('@'));
  const after = text.slice(status.index + status[0].length);
  const messageId = /^message-id:\s*(<[^>\s]+>)/im.exec(after)?.[1];
  if (!messageId || failed.length === 0) return null;
  return { messageId, failed: [...new Set(failed)] };
}

function fieldsOf(block: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}
