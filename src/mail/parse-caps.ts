import type { ParsedAddress, ParsedEmail } from './types.js';

/** Addresses kept per header: one message cannot make a page of a list huge. */
export const MAX_ADDRESSES = 100;
export const MAX_SUBJECT_LENGTH = 998;
/** Display names, file names. */
export const MAX_NAME_LENGTH = 256;
/** Message-IDs and addresses (RFC 5322 lines are at most 998 characters). */
export const MAX_ID_LENGTH = 998;
/** References kept: the first (the thread's root) and the most recent ones. */
export const MAX_REFERENCES = 100;

const cut = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

const capAddress = (a: ParsedAddress): ParsedAddress => ({
  address: cut(a.address, MAX_ID_LENGTH),
  name: cut(a.name, MAX_NAME_LENGTH),
});

const ADDRESS_HEADERS = [
  ['to', 'To'],
  ['cc', 'Cc'],
  ['bcc', 'Bcc'],
  ['replyTo', 'Reply-To'],
] as const;

/**
 * Bounds what a parsed message carries into rows and list views. `totals` holds, for header
 * fields cut before parsing, about how many addresses the whole field had.
 */
export function capParsed(email: ParsedEmail, totals: ReadonlyMap<string, number>): ParsedEmail {
  for (const [key, header] of ADDRESS_HEADERS) {
    const list = email[key];
    const total = Math.max(list.length, totals.get(header.toLowerCase()) ?? 0);
    if (total > MAX_ADDRESSES) {
      email.warnings.push(`${header}: ${total} addresses, only the first ${MAX_ADDRESSES} kept`);
      email.addressTotals = { ...email.addressTotals, [key]: total };
    }
    email[key] = list.slice(0, MAX_ADDRESSES).map(capAddress);
  }
  if (email.from) email.from = capAddress(email.from);
  if (email.subject.length > MAX_SUBJECT_LENGTH) {
    email.warnings.push(`subject of ${email.subject.length} characters cut to ${MAX_SUBJECT_LENGTH}`);
    email.subject = email.subject.slice(0, MAX_SUBJECT_LENGTH);
  }
  email.messageId = cut(email.messageId, MAX_ID_LENGTH);
  if (email.inReplyTo) email.inReplyTo = cut(email.inReplyTo, MAX_ID_LENGTH);
  const refs = email.references.map((r) => cut(r, MAX_ID_LENGTH));
  email.references =
    refs.length > MAX_REFERENCES ? [refs[0]!, ...refs.slice(refs.length - MAX_REFERENCES + 1)] : refs;
  for (const a of email.attachments) a.filename = cut(a.filename, MAX_NAME_LENGTH);
  return email;
}
