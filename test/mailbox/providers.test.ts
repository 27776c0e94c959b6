import { describe, expect, it } from 'vitest';
import { PROVIDERS, providerUrls } from '../../src/mailbox/connect/providers.js';

// The real providers cannot be reached here: what is checked is that each preset resolves to the
// hosts, ports and TLS its provider documents (the sources are named in providers.ts).
describe('provider presets', () => {
  it.each([
    [
      'gmail',
      'ann@gmail.com',
      'imaps://ann%40gmail.com@imap.gmail.com:993',
      'smtps://ann%40gmail.com@smtp.gmail.com:465',
    ],
    [
      'microsoft',
      'ann@contoso.com',
      'imaps://ann%40contoso.com@outlook.office365.com:993',
      'smtp://ann%40contoso.com@smtp.office365.com:587',
    ],
    [
      'yahoo',
      'ann@yahoo.com',
      'imaps://ann%40yahoo.com@imap.mail.yahoo.com:993',
      'smtps://ann%40yahoo.com@smtp.mail.yahoo.com:465',
    ],
    // iCloud logs in to IMAP with the address's name part only, to SMTP with the whole address.
    [
      'icloud',
      'ann@icloud.com',
      'imaps://ann@imap.mail.me.com:993',
      'smtp://ann%40icloud.com@smtp.mail.me.com:587',
    ],
    [
      'fastmail',
      'ann@fastmail.com',
      'imaps://ann%40fastmail.com@imap.fastmail.com:993',
      'smtps://ann%40fastmail.com@smtp.fastmail.com:465',
    ],
  ] as const)('%s resolves to its documented servers', (name, address, imap, smtp) => {
    expect(providerUrls(PROVIDERS[name], address)).toEqual({ imap, smtp });
  });

  it('knows which providers take OAuth2, and where their tokens come from', () => {
    expect(PROVIDERS.microsoft.auth).toBe('oauth2');
    expect(PROVIDERS.gmail.oauth?.tokenUrl).toBe('https://oauth2.googleapis.com/token');
    expect(PROVIDERS.microsoft.oauth?.tokenUrl).toBe(
      'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    );
    expect(PROVIDERS.microsoft.oauth?.scopes).toContain('offline_access');
    expect(PROVIDERS.icloud.oauth).toBeUndefined();
    expect(PROVIDERS.fastmail.auth).toBe('password');
  });
});
