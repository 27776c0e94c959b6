import { parseEmail } from '../parse.js';
import type { ParsedEmail } from '../types.js';
import { screenParsed } from './screen.js';

/** A received message as it is filed: parsed (attachments' metadata only) and screened. */
export async function parseReceived(raw: Buffer): Promise<ParsedEmail> {
  return screenParsed(await parseEmail(raw, { content: 'none' }));
}
