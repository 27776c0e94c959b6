/** What one attempt did for one recipient. */
export interface Outcome {
  recipient: string;
  result: 'delivered' | 'captured' | 'temporary' | 'permanent';
  /** The receiving server's reply, or what went wrong before one came. */
  response: string;
  /** The host that answered, when one did. */
  remoteMta: string | null;
}

export function allRecipients(
  recipients: string[],
  result: Outcome['result'],
  response: string,
  remoteMta: string | null,
): Outcome[] {
  return recipients.map((recipient) => ({ recipient, result, response, remoteMta }));
}
