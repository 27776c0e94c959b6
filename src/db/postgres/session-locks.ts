import pg from 'pg';

/** The first wait between two tries for a lock another node holds; doubled up to MAX_WAIT_MS. */
const FIRST_WAIT_MS = 10;
const MAX_WAIT_MS = 250;

/**
 * Session-level advisory locks (Db.holdLock) on one connection of this process's own, not a
 * pool one: a lock held across an IMAP round trip would otherwise keep a pool connection idle the
 * while. Every lock this process holds is on it, so it never blocks: a lock another node holds is
 * asked for again (pg_try_advisory_lock) after 10 ms, doubling to 250 ms. Locks of one session
 * nest, so callers must not ask twice for one key at once (the mailbox's Mutex sees to that).
 * A lost connection lets go of every lock it held (the server ends its session); the next ask
 * connects again.
 */
export class SessionLocks {
  private client: Promise<pg.Client> | null = null;
  /** The connection once made; a lock taken on one that was since lost is held no more. */
  private live: pg.Client | null = null;
  private closed = false;

  constructor(private readonly url: string) {}

  async hold(space: number, key: number, onWait?: () => void): Promise<() => Promise<void>> {
    let wait = FIRST_WAIT_MS;
    for (;;) {
      const held = await this.tryLock(space, key);
      if (held) {
        return async () => {
          // Gone with a lost connection already, or closed: nothing is held any more.
          if (this.live !== held || this.closed) return;
          await held.query('SELECT pg_advisory_unlock($1, $2)', [space, key]).catch(() => {});
        };
      }
      if (wait === FIRST_WAIT_MS) onWait?.();
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 2, MAX_WAIT_MS);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = null;
    await (await client?.catch(() => null))?.end().catch(() => {});
  }

  /** The connection that now holds the lock, or null when another session holds it. */
  private async tryLock(space: number, key: number): Promise<pg.Client | null> {
    if (this.closed) throw new Error('the database is closed');
    const client = await this.connection();
    const { rows } = await client.query<{ locked: boolean }>(
      'SELECT pg_try_advisory_lock($1, $2) AS locked',
      [space, key],
    );
    return rows[0]!.locked ? client : null;
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 10_000 });
    const connecting = client.connect().then(() => (this.live = client));
    const lost = () => {
      if (this.client === connecting) this.client = null;
      if (this.live === client) this.live = null;
      void client.end().catch(() => {});
    };
    client.on('error', lost);
    client.on('end', lost);
    this.client = connecting;
    connecting.catch(lost);
    return connecting;
  }
}
