import pg from 'pg';

/** What the start-up steps (migrations, conversions) run on: the pool, or a client already taken. */
export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** Runs `fn` on one connection: a pool's is taken for it and given back after. */
export async function withClient<T>(
  db: Queryable,
  fn: (client: pg.PoolClient | pg.Client) => Promise<T>,
): Promise<T> {
  const client = db instanceof pg.Pool ? await db.connect() : db;
  try {
    return await fn(client);
  } finally {
    if (client !== db) (client as pg.PoolClient).release();
  }
}

/** Runs `fn` in a transaction on `client`: committed when it returns, rolled back when it throws. */
export async function inTransaction<T>(client: pg.PoolClient | pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * A last step of a migration, taken once: when `due` holds, in a transaction holding the
 * advisory lock `lockKey` and with `due` checked again under it, so nodes starting together take
 * it once. Answers whether this call took it.
 */
export async function onceWhenDue(
  db: Queryable,
  lockKey: bigint,
  due: (client: pg.PoolClient | pg.Client) => Promise<boolean>,
  step: (client: pg.PoolClient | pg.Client) => Promise<void>,
): Promise<boolean> {
  return withClient(db, async (client) => {
    if (!(await due(client))) return false;
    return inTransaction(client, async () => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey.toString()]);
      if (!(await due(client))) return false;
      await step(client);
      return true;
    });
  });
}
