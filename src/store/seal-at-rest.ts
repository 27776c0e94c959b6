import type { Db } from '../db/connection.js';
import { SEALED_PREFIX, SealedValueUnreadable } from './sealing.js';
import type { Sealer } from './sealing.js';

/** A settings row sealed with the database's secret: a wrong secret shows at start, not at first use. */
const CHECK_KEY = 'secret_check';
const CHECK_VALUE = 'mailroom';

export interface SealedNow {
  dkimKeys: number;
  webhookSecrets: number;
}

/**
 * The data step after the SQL migrations, run where MAILROOM_SECRET is known (server start and
 * every admin command): checks the secret against what is already sealed, then seals the DKIM
 * keys and webhook secrets still stored in clear (a database from before sealing, or rows an
 * older version wrote since). Sealed rows are left, so it runs at every start; one transaction.
 * Throws SealedValueUnreadable when the secret is not the one this database was sealed with.
 */
export async function sealSecretsAtRest(db: Db, sealer: Sealer): Promise<SealedNow> {
  // Freed pages and a WAL are SQLite's: another engine only seals.
  if (db.engine !== 'sqlite') return sealInOneTransaction(db, sealer);
  // The space a clear value held is zeroed, not just freed, and the WAL that held the old pages
  // is folded into the file and emptied: sealing must leave no copy in clear behind.
  const before = await db.rawFirst<{ secure_delete: number }>('PRAGMA secure_delete');
  await db.rawRun('PRAGMA secure_delete = ON');
  try {
    const sealed = await sealInOneTransaction(db, sealer);
    if (sealed.dkimKeys + sealed.webhookSecrets > 0) await db.rawRun('PRAGMA wal_checkpoint(TRUNCATE)');
    return sealed;
  } finally {
    await db.rawRun(`PRAGMA secure_delete = ${Number(before?.secure_delete ?? 0)}`);
  }
}

function sealInOneTransaction(db: Db, sealer: Sealer): Promise<SealedNow> {
  return db.transaction(async () => {
    await checkSecret(db, sealer);
    const keys = await db.all(
      db.kysely
        .selectFrom('domains')
        .select(['name', 'dkim_private_key'])
        .where('dkim_private_key', 'not like', `${SEALED_PREFIX}%`),
    );
    for (const { name, dkim_private_key } of keys) {
      await db.run(
        db.kysely
          .updateTable('domains')
          .set({ dkim_private_key: sealer.seal('dkim-private-key', dkim_private_key) })
          .where('name', '=', name),
      );
    }
    const secrets = await db.all(
      db.kysely
        .selectFrom('webhooks')
        .select(['id', 'secret'])
        .where('secret', 'not like', `${SEALED_PREFIX}%`),
    );
    for (const { id, secret } of secrets) {
      await db.run(
        db.kysely
          .updateTable('webhooks')
          .set({ secret: sealer.seal('webhook-secret', secret) })
          .where('id', '=', id),
      );
    }
    return { dkimKeys: keys.length, webhookSecrets: secrets.length };
  });
}

/**
 * Whether `sealer` opens what the database has sealed (its secret_check row, or else an IMAP
 * credential); undefined when it holds nothing sealed to try. Reads only.
 */
export async function secretOpens(db: Db, sealer: Sealer): Promise<boolean | undefined> {
  const check = await db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', CHECK_KEY));
  const sealed =
    check?.value ??
    (
      await db.first(
        db.kysely
          .selectFrom('inboxes')
          .select('remote_config')
          .where('remote_config', 'like', `${SEALED_PREFIX}%`)
          .limit(1),
      )
    )?.remote_config;
  if (!sealed) return undefined;
  try {
    sealer.open(check ? 'secret-check' : 'remote-credentials', sealed);
    return true;
  } catch (error) {
    if (error instanceof SealedValueUnreadable) return false;
    throw error;
  }
}

async function checkSecret(db: Db, sealer: Sealer): Promise<void> {
  const readCheck = () =>
    db.first(db.kysely.selectFrom('settings').select('value').where('key', '=', CHECK_KEY));
  const check = await readCheck();
  if (check) {
    sealer.open('secret-check', check.value);
    return;
  }
  // A database from before the check: an IMAP credential sealed back then tells the same.
  const sealed = await db.first(
    db.kysely
      .selectFrom('inboxes')
      .select('remote_config')
      .where('remote_config', 'like', `${SEALED_PREFIX}%`)
      .limit(1),
  );
  if (sealed?.remote_config) sealer.open('remote-credentials', sealed.remote_config);
  // Another node starting at the same moment may write it first: its row is the check then.
  await db.run(
    db.kysely
      .insertInto('settings')
      .values({ key: CHECK_KEY, value: sealer.seal('secret-check', CHECK_VALUE) })
      .onConflict((oc) => oc.column('key').doNothing()),
  );
  sealer.open('secret-check', (await readCheck())!.value);
}
