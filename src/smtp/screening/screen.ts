import type { SMTPServerSession } from 'smtp-server';
import type { MailboxDeps } from '../../mailbox/deps.js';
import type { SpamCheckView } from '../../mailbox/reading/email-view.js';
import { countScreening } from '../../mailbox/ingest/screening-outcomes.js';
import type { ScreeningOutcome } from '../../mailbox/ingest/screening-outcomes.js';
import type { AuthResults, DnsResolver } from '../auth-check.js';
import { checkAuthentication } from '../auth-check.js';
import { envelopeSender } from '../envelope.js';
import { reply } from '../replies.js';
import { scanWithClamd } from './clamd.js';
import { checkWithRspamd } from './rspamd.js';

/** What screening decided for a message it lets in. */
export interface Screened {
  /** SPF, DKIM and DMARC, when MAILROOM_VERIFY_AUTH is on. */
  authResults?: AuthResults;
  /** File into Spam instead of INBOX. */
  spam: boolean;
  /** rspamd's verdict, when it was asked and answered. */
  spamCheck?: SpamCheckView;
}

/**
 * Screens a received message before the answer to DATA (contract 16), in this order: ClamAV
 * (a virus is 554 whatever else would be said), SPF/DKIM/DMARC, then rspamd. Resolves to where
 * the message goes; throws the SMTP reply for one refused or deferred, counted for /metrics.
 */
export async function screenMessage(
  deps: MailboxDeps,
  session: SMTPServerSession,
  raw: Buffer,
  authResolver?: DnsResolver,
): Promise<Screened> {
  const { config, log } = deps;
  const refuse = async (outcome: ScreeningOutcome, error: Error) => {
    await countScreening(deps, outcome);
    return error;
  };
  const sender = envelopeSender(session);

  if (config.clamd) {
    try {
      const verdict = await scanWithClamd(config.clamd, raw);
      if (!verdict.clean) {
        log.info({ session: session.id, signature: verdict.signature }, 'inbound message refused: virus');
        throw await refuse('virus', reply.virusFound(verdict.signature));
      }
    } catch (error) {
      if ((error as { responseCode?: number }).responseCode) throw error;
      log.warn({ err: error, session: session.id, fail: config.clamdFail }, 'virus scan failed');
      if (config.clamdFail === 'tempfail') throw await refuse('tempfail', reply.virusScanUnavailable());
    }
  }

  const screened: Screened = { spam: false };
  if (config.verifyAuth) {
    const { results } = await checkAuthentication(
      raw,
      { ip: session.remoteAddress, helo: session.hostNameAppearsAs, sender, mta: config.hostname },
      authResolver,
    );
    screened.authResults = results;
    const { result, policy, domain } = results.dmarc;
    if (result === 'fail' && policy === 'reject') {
      // Without enforcement a failure under p=reject is kept, in Spam (contract 5).
      if (config.dmarcEnforce) throw await refuse('rejected', reply.dmarcRejected(domain ?? 'the sender'));
      screened.spam = true;
    }
    if (result === 'fail' && policy === 'quarantine' && config.dmarcEnforce) screened.spam = true;
  }

  if (config.rspamdUrl) {
    try {
      const check = await checkWithRspamd(
        config.rspamdUrl,
        raw,
        {
          ip: session.remoteAddress,
          helo: session.hostNameAppearsAs,
          from: sender,
          rcpt: session.envelope.rcptTo.map((r) => r.address),
          hostname: reverseName(session),
          queueId: session.id,
        },
        config.rspamdTimeoutMs,
      );
      if (check.action === 'reject') throw await refuse('rejected', reply.spamRejected());
      if (check.action === 'soft reject' || check.action === 'greylist')
        throw await refuse('tempfail', reply.spamDeferred());
      screened.spamCheck = check;
      if (check.action !== 'no action') screened.spam = true;
    } catch (error) {
      if ((error as { responseCode?: number }).responseCode) throw error;
      log.warn({ err: error, session: session.id, fail: config.rspamdFail }, 'spam check failed');
      if (config.rspamdFail === 'tempfail') throw await refuse('tempfail', reply.spamCheckUnavailable());
    }
  }
  return screened;
}

/** The client's name from reverse DNS, when smtp-server looked it up (it does not here by default). */
function reverseName(session: SMTPServerSession): string | undefined {
  const name = session.clientHostname;
  return name && name !== session.remoteAddress && !name.startsWith('[') ? name : undefined;
}
