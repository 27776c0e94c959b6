/**
 * Whether a message's headers say a machine sent it (contract 14, the Email's autoReply): an
 * Auto-Submitted other than `no` (RFC 3834), Precedence bulk, junk or list, or an X-Autoreply or
 * X-Autorespond header (any value: the programs that set them write yes, the subject, or a name).
 * `headers` as ParsedEmail keeps them: lower-cased names, decoded values.
 */
export function isAutomatic(headers: Readonly<Record<string, string>>): boolean {
  const autoSubmitted = headers['auto-submitted']?.split(';')[0]?.trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return true;
  const precedence = headers['precedence']?.trim().toLowerCase();
  if (precedence === 'bulk' || precedence === 'junk' || precedence === 'list') return true;
  return 'x-autoreply' in headers || 'x-autorespond' in headers;
}
