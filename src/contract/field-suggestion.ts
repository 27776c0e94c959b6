/**
 * Names callers reach for that are far in spelling from the field they mean: what other mail
 * APIs call the plain-text body, the recipients, and so on.
 */
const ALIASES: Record<string, string[]> = {
  text: ['body', 'content', 'message', 'plain', 'plaintext', 'bodytext', 'textbody', 'msg'],
  html: ['bodyhtml', 'htmlbody', 'htmlcontent'],
  to: ['recipient', 'recipients', 'toaddress', 'address', 'addresses'],
  from: ['sender', 'fromaddress'],
  subject: ['title', 'topic'],
  attachments: ['files', 'attachment'],
  account: ['inbox', 'mailbox', 'email', 'user'],
  labels: ['label', 'tags', 'tag'],
};

/** Lower case without `_`, `-` or spaces: `reply_to`, `Reply-To` and `replyTo` compare equal. */
const normal = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

/**
 * The field a caller most likely meant by an unknown `name`, or undefined when none is close:
 * the same name in another case or separator style, a known alias, or a spelling within a
 * small edit distance (at most 2, and at most a third of the name).
 */
export function closestField(name: string, fields: readonly string[]): string | undefined {
  const wanted = normal(name);
  const same = fields.find((field) => normal(field) === wanted);
  if (same) return same;
  const alias = fields.find((field) => ALIASES[field]?.includes(wanted));
  if (alias) return alias;
  const limit = Math.min(2, Math.floor(wanted.length / 3));
  let best: { field: string; distance: number } | undefined;
  for (const field of fields) {
    const distance = editDistance(wanted, normal(field));
    if (distance <= limit && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** The message for one unknown field, with the field meant when one is close. */
export function unknownFieldMessage(name: string, fields: readonly string[]): string {
  const meant = closestField(name, fields);
  const quoted = JSON.stringify(name);
  return meant ? `unknown field ${quoted}; did you mean "${meant}"?` : `unknown field ${quoted}`;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, substitute));
    }
    previous = row;
  }
  return previous[b.length]!;
}
