import { openPostgres } from '../../src/db/postgres/open.js';
import { createStore } from '../../src/store/index.js';
import { startPostgres } from '../helpers/postgres.js';
import type { Latency } from './list.js';
import { percentiles, timeRequests } from './list.js';
import { startMailroom } from './processes.js';

const STATEMENTS = 2000;
const REQUESTS = 1000;

/** `count` sequential calls of `f`, timed in milliseconds after 200 untimed ones. */
async function timeCalls(count: number, f: () => Promise<unknown>): Promise<Latency> {
  for (let i = 0; i < 200; i++) await f();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = process.hrtime.bigint();
    await f();
    samples.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  return percentiles(samples);
}

/**
 * What the row-based per-key API rate limit costs a request on a durable PostgreSQL: its upsert
 * alone (beside a bare round trip), and a whole cheap request (GET /accounts) that makes it,
 * beside the same request on SQLite, where the count is a map in memory.
 */
export async function runRate(): Promise<{
  roundTrip: Latency;
  upsert: Latency;
  pgRequest: Latency;
  sqliteRequest: Latency;
}> {
  const postgres = await startPostgres({ durable: true });
  try {
    const url = await postgres.createDatabase();
    const db = await openPostgres(url);
    const store = createStore(db, 'the rate bench secret, long enough');
    const roundTrip = await timeCalls(STATEMENTS, () => db.rawFirst('SELECT 1'));
    const upsert = await timeCalls(STATEMENTS, () => store.rateWindows.hit('key:bench', 60_000));
    await db.close();
    const request = async (env: Record<string, string>) => {
      const server = await startMailroom(env);
      try {
        return await timeRequests(
          () => `http://127.0.0.1:${server.httpPort}/api/v1/accounts`,
          server.apiKey,
          REQUESTS,
        );
      } finally {
        await server.stop();
      }
    };
    const pgRequest = await request({ MAILROOM_DATABASE_URL: await postgres.createDatabase() });
    const sqliteRequest = await request({});
    return { roundTrip, upsert, pgRequest, sqliteRequest };
  } finally {
    await postgres.stop();
  }
}
