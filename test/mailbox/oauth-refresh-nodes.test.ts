import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens } from '../../src/mailbox/connect/access-tokens.js';
import type { MailboxDeps } from '../../src/mailbox/deps.js';
import type { RemoteConfig } from '../../src/mailbox/remote.js';
import {
  refreshGrantAlone,
  remoteConfigOf,
  saveRemoteConfig,
} from '../../src/mailbox/sync/connected-inboxes.js';
import type { InboxRow } from '../../src/store/inboxes.js';
import { inProcessInbox } from '../helpers/in-process.js';
import { onPostgres } from '../helpers/server.js';
import { OAUTH_CLIENT, startOAuthProvider } from '../helpers/oauth-provider.js';
import type { OAuthProvider } from '../helpers/oauth-provider.js';

/**
 * Two nodes hold the same connected inbox's grant, each with the refresh token it read at start.
 * A provider that rotates refresh tokens (Microsoft does) retires each one once used: the node
 * that refreshes second must use the token the first stored, or the grant is lost for both.
 */
describe('an OAuth2 grant refreshed by two nodes', () => {
  let deps: MailboxDeps;
  let inbox: InboxRow;
  let close: () => Promise<void>;
  let provider: OAuthProvider;

  beforeAll(async () => {
    ({ deps, inbox, close } = await inProcessInbox('agent@mailroom.test', { secret: 's'.repeat(64) }));
    provider = await startOAuthProvider();
    provider.rotate = true;
  });
  afterAll(async () => {
    await provider?.close();
    await close?.();
  });

  /** What one node builds for the inbox: tokens from the grant as it read it, storing what rotates. */
  function node(config: RemoteConfig): AccessTokens {
    return new AccessTokens(
      { tokenUrl: provider.tokenUrl },
      { clientId: OAUTH_CLIENT.id, clientSecret: OAUTH_CLIENT.secret },
      config.oauth2!.refreshToken,
      async (rotated) => {
        config.oauth2!.refreshToken = rotated;
        await saveRemoteConfig(deps, inbox.id, config);
      },
      fetch,
      (refresh) => refreshGrantAlone(deps, inbox.id, refresh),
    );
  }

  it('refreshes on the second node with the token the first rotated, and both keep working', async () => {
    const stored: RemoteConfig = {
      imap: 'imaps://imap.example.com',
      smtp: 'smtps://smtp.example.com',
      oauth2: { provider: 'gmail', refreshToken: provider.grant('agent@example.com') },
    };
    await saveRemoteConfig(deps, inbox.id, stored);
    // Each node read the grant as stored at its start.
    const [a, b] = [node(structuredClone(stored)), node(structuredClone(stored))];

    const first = await a.get();
    const rotatedOnce = remoteConfigOf(deps, (await deps.store.inboxes.get(inbox.id))!).oauth2!.refreshToken;
    expect(rotatedOnce).not.toBe(stored.oauth2!.refreshToken);

    const second = await b.get();
    expect(second).not.toBe(first);
    const third = await a.get(true);
    expect([first, second, third]).toHaveLength(new Set([first, second, third]).size);
    expect(provider.refreshes).toBe(3);
  });

  // SQLite has one node, whose inbox has one AccessTokens: refreshes cannot meet there.
  it.runIf(onPostgres)(
    'lets two nodes refreshing at the same moment take turns, each with the token the other left',
    async () => {
      const stored = remoteConfigOf(deps, (await deps.store.inboxes.get(inbox.id))!);
      const [a, b] = [node(structuredClone(stored)), node(structuredClone(stored))];
      const tokens = await Promise.all([a.get(true), b.get(true), a.get(true), b.get(true)]);
      expect(new Set(tokens).size).toBe(2);
      expect(await a.get(true)).toBeTruthy();
      expect(await b.get(true)).toBeTruthy();
    },
  );
});
