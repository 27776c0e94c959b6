import type { SMTPServerSession } from 'smtp-server';

/** The envelope sender (MAIL FROM), or '' for the null sender `<>` of a bounce. */
export function envelopeSender(session: SMTPServerSession): string {
  return session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
}
