import { openJson } from '../store/sealing.js';
import type { InboxRow } from '../store/inboxes.js';
import type { MailboxDeps } from './deps.js';
import { ValidationFailed } from './errors.js';
import type { RemoteConfig, TlsTrust } from './remote.js';

const PEM = /^-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/;
const MAX_CA_CHARS = 64 * 1024;

/** A mailbox's TLS trust as given, checked: a PEM certificate (or bundle), or `insecure`, not both. */
export function checkTls(
  field: 'imap' | 'smtp',
  trust: TlsTrust | undefined,
): Partial<Pick<RemoteConfig, 'imapTls' | 'smtpTls'>> {
  if (!trust || (trust.ca === undefined && !trust.insecure)) return {};
  if (trust.ca !== undefined && trust.insecure)
    throw ValidationFailed.field(`${field}.tls`, 'give either ca or insecure, not both');
  if (trust.ca !== undefined) {
    const ca = trust.ca.trim();
    if (ca.length > MAX_CA_CHARS || !PEM.test(ca))
      throw ValidationFailed.field(
        `${field}.tls.ca`,
        'must be PEM certificates ("-----BEGIN CERTIFICATE-----" ...), at most 64 KB',
      );
    return { [`${field}Tls`]: { ca } };
  }
  return { [`${field}Tls`]: { insecure: true } };
}

/** How an IMAP inbox's servers' certificates are checked, as views show it (never the PEM). */
export type CertificateCheck = 'system' | 'given-ca' | 'off';

export function certificateCheckOf(deps: MailboxDeps, inbox: InboxRow): CertificateCheck {
  if (!inbox.remote_config || !deps.config.secret) return 'system';
  const config = openJson<RemoteConfig>(deps.config.secret, inbox.remote_config);
  const trusts = [config.imapTls, config.smtpTls];
  if (trusts.some((t) => t?.insecure)) return 'off';
  return trusts.some((t) => t?.ca) ? 'given-ca' : 'system';
}
