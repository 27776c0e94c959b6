import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { emailOfIdToken } from '../../src/mailbox/connect/oauth2.js';

const client = { clientId: 'mailroom-client' };
const key = new TextEncoder().encode('a key the test signs with, 32 bytes or more');
const idToken = (claims: Record<string, unknown>, audience: string | string[] = client.clientId) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(audience)
    .setSubject('1234')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);

// The dashboard's Connect button learns the mailbox's address from the ID token the token
// endpoint answered; a token for another client or an unverified address names none.
describe('the address an ID token names', () => {
  it('is its email claim when issued to this client', async () => {
    expect(emailOfIdToken(await idToken({ email: 'ann@gmail.com', email_verified: true }), client)).toBe(
      'ann@gmail.com',
    );
    expect(
      emailOfIdToken(await idToken({ email: 'ann@contoso.com' }, ['other', client.clientId]), client),
    ).toBe('ann@contoso.com');
  });

  it('is none for another client, an unverified address, no email claim, or not a JWT', async () => {
    expect(
      emailOfIdToken(await idToken({ email: 'ann@gmail.com' }, 'another-client'), client),
    ).toBeUndefined();
    expect(
      emailOfIdToken(await idToken({ email: 'ann@gmail.com', email_verified: false }), client),
    ).toBeUndefined();
    expect(emailOfIdToken(await idToken({ name: 'Ann' }), client)).toBeUndefined();
    expect(emailOfIdToken('not-a-token', client)).toBeUndefined();
  });
});
