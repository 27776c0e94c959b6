import type { Screening } from './screening/screen.js';

/** What src/mail/ reads out of a raw RFC 5322 message. Pure data: no I/O, no database ids. */

export interface ParsedAddress {
  /** Bare address, lower-cased domain, as written local part. Empty string when unparseable. */
  address: string;
  /** Display name, decoded; empty string when absent. */
  name: string;
}

export interface ParsedAttachment {
  /** Stable within the message: the same raw message always yields the same ids ("a1", "a2", ...). */
  id: string;
  filename: string;
  contentType: string;
  size: number;
  /** Content-ID without angle brackets, or null. */
  contentId: string | null;
  /** True for inline parts (Content-Disposition inline with a Content-ID, e.g. images referenced by cid:). */
  inline: boolean;
  content: Buffer;
}

export type AddressTotals = Partial<Record<'to' | 'cc' | 'bcc' | 'replyTo', number>>;

export interface ParsedEmail {
  /** In angle brackets. Synthesised (`<generated-...@mailroom.invalid>`-style, deterministic from the raw bytes) when absent. */
  messageId: string;
  /** True when messageId was synthesised because the header was missing or empty. */
  messageIdGenerated: boolean;
  from: ParsedAddress | null;
  to: ParsedAddress[];
  cc: ParsedAddress[];
  bcc: ParsedAddress[];
  replyTo: ParsedAddress[];
  subject: string;
  /** The Date header as a Date; null when missing or unparseable (the caller uses receipt time). */
  date: Date | null;
  /** Plain text; derived from html when the message has only html. Empty string when no body. */
  text: string;
  /** HTML body, or empty string. */
  html: string;
  /** In angle brackets, or null. */
  inReplyTo: string | null;
  /** Message-IDs in angle brackets, oldest first. */
  references: string[];
  attachments: ParsedAttachment[];
  /** Lower-cased header names to their (first) decoded value, for the few we need later (e.g. list-id, auto-submitted). */
  headers: Record<string, string>;
  /** The whole count of each address list that was cut to its first entries; absent when none was. */
  addressTotals?: AddressTotals;
  /** Problems found while parsing (broken MIME, unknown charset, bad base64...). Never thrown. */
  warnings: string[];
  /** What screening found in received mail (screenParsed); absent on mail that was not screened. */
  screening?: Screening;
}
