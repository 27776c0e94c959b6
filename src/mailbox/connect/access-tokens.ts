import type { FetchLike, OAuthClient } from './oauth2.js';
import { refreshAccessToken } from './oauth2.js';
import type { OAuthEndpoints } from './providers.js';

/** How long before its expiry an access token is replaced (at most half its lifetime). */
const RENEW_BEFORE_MS = 5 * 60_000;

/**
 * The access tokens of one mailbox's OAuth2 grant: the last one is reused until shortly before
 * it expires, then refreshed; `get(true)` refreshes at once (a server refused the token). One
 * refresh at a time (across nodes too, through `alone`). A rotated refresh token is handed to
 * `onRotate` to be stored. Tokens live in memory only: a restart just refreshes again.
 */
export class AccessTokens {
  private current: { token: string; renewAt: number } | null = null;
  private refreshing: Promise<string> | null = null;

  constructor(
    private readonly endpoints: Pick<OAuthEndpoints, 'tokenUrl'>,
    private readonly client: OAuthClient,
    private refreshToken: string,
    private readonly onRotate: (refreshToken: string) => Promise<void> = async () => {},
    private readonly fetchFn: FetchLike = fetch,
    /**
     * Where several nodes share the grant: runs a refresh alone, handing it the refresh token as
     * stored now (another node may have rotated the one this holds).
     */
    private readonly alone?: (refresh: (stored: string | undefined) => Promise<string>) => Promise<string>,
  ) {}

  get(renew = false): Promise<string> {
    if (!renew && this.current && Date.now() < this.current.renewAt)
      return Promise.resolve(this.current.token);
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  private refresh(): Promise<string> {
    this.current = null;
    if (!this.alone) return this.refreshWith(undefined);
    return this.alone((stored) => this.refreshWith(stored));
  }

  private async refreshWith(stored: string | undefined): Promise<string> {
    if (stored) this.refreshToken = stored;
    const answer = await refreshAccessToken(this.endpoints, this.client, this.refreshToken, this.fetchFn);
    const lifetime = answer.expiresAt - Date.now();
    this.current = {
      token: answer.accessToken,
      renewAt: answer.expiresAt - Math.min(RENEW_BEFORE_MS, lifetime / 2),
    };
    if (answer.refreshToken && answer.refreshToken !== this.refreshToken) {
      this.refreshToken = answer.refreshToken;
      await this.onRotate(answer.refreshToken);
    }
    return answer.accessToken;
  }
}
