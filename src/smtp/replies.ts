/** SMTP replies Mailroom gives, in one place (contract 8). */
export function smtpError(responseCode: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode });
}

export const reply = {
  unknownUser: () => smtpError(550, '5.1.1 No such user here'),
  relayDenied: () => smtpError(550, '5.7.1 Relay access denied'),
  senderBlocked: () => smtpError(550, '5.7.1 The recipient does not accept mail from this sender'),
  tooManyRecipients: (max: number) =>
    smtpError(452, `4.5.3 Too many recipients (at most ${max} per message)`),
  tooLarge: (max: number) => smtpError(552, `5.3.4 Message too big (at most ${max} bytes)`),
  lookupFailed: () => smtpError(451, '4.3.0 Temporary failure looking up the recipient, try again later'),
  storageFailed: () => smtpError(451, '4.3.0 Temporary failure storing the message, try again later'),
  tooManyConnections: () => smtpError(421, '4.7.0 Too many connections from your address, try again later'),
  rateLimited: () => smtpError(451, '4.7.1 Too many messages from your address, slow down'),
  inflightFull: () =>
    smtpError(452, '4.3.1 Insufficient system resources for this message now, try again later'),
  tooManyFailedRecipients: () => smtpError(421, '4.7.0 Too many unknown recipients, closing connection'),
  dataTooSlow: () => smtpError(421, '4.4.2 Message transfer too slow or too long, closing connection'),
  commandTimeout: () => smtpError(421, '4.4.2 Command not completed in time, closing connection'),
  noRecipients: () => smtpError(554, '5.5.1 No valid recipients'),
  // Screening (contract 16): ClamAV, DMARC, rspamd.
  virusFound: (signature: string) =>
    smtpError(554, `5.7.1 Message refused: virus found (${signature.replace(/[^\x21-\x7e]/g, '_')})`),
  virusScanUnavailable: () => smtpError(451, '4.7.1 Virus scanning is unavailable, try again later'),
  dmarcRejected: (domain: string) =>
    smtpError(550, `5.7.1 Message refused: it fails the DMARC policy (p=reject) of ${domain}`),
  spamRejected: () => smtpError(550, '5.7.1 Message refused as spam'),
  spamDeferred: () => smtpError(451, '4.7.1 Message deferred by the spam filter, try again later'),
  spamCheckUnavailable: () => smtpError(451, '4.7.1 Spam checking is unavailable, try again later'),
};
