import pg from 'pg';

/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1000;

/**
 * A connection of its own that LISTENs on `channel` and calls `onNotice` for each NOTIFY, until
 * the answered function is called. A lost connection is made again after RECONNECT_MS, and
 * `onNotice` is called once it is back (a notice sent meanwhile was lost; the listener catches up).
 * Not a pool connection: LISTEN belongs to its session, and it would hold one of the pool's for good.
 */
export async function listenForNotices(
  url: string,
  channel: string,
  onNotice: () => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (reconnected: boolean): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    next.on('notification', (notice) => {
      if (notice.channel === channel) onNotice();
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch {
      lost(next);
      return;
    }
    if (stopped) return void (await next.end().catch(() => {}));
    client = next;
    if (reconnected) onNotice();
  };

  const lost = (which: pg.Client): void => {
    if (client === which) client = null;
    void which.end().catch(() => {});
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!stopped && !client) void connect(true);
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = null;
    await last?.end().catch(() => {});
  };
}
