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
