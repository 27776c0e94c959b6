import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/open.js';
import { runPostgresMigrations } from '../../src/db/postgres/migrate.js';
import { testPostgres } from '../helpers/test-postgres.js';

/** What a store query can rely on about a column, in terms both engines share. */
interface Column {
  type: 'integer' | 'text' | 'bytes';
  notNull: boolean;
  /** The default as a value ('' / '[]' / 0 / 'enabled'), 'identity' for a generated key, or null. */
  default: string | null;
}

type Schema = Record<string, Record<string, Column>>;

/** SQLite's own: FTS5 keeps its index in these shadow tables of messages_fts. */
const FTS5_SHADOW_TABLES = [
  'messages_fts_data',
  'messages_fts_idx',
  'messages_fts_docsize',
  'messages_fts_config',
];

/**
 * PostgreSQL's own columns, each standing in for something SQLite has without a declared column.
 * Any other difference is drift.
 */
const POSTGRES_ONLY_COLUMNS = [
  'messages_fts.rowid', // SQLite's implicit rowid of the FTS5 table (= messages.id)
  'messages_fts.words', // the words FTS5 keeps in its shadow tables (the GIN index is on their tsvector)
  'labels.rowid', // SQLite's implicit rowid, which labels are paged by
  'webhooks.rowid', // the same for webhooks
];

function sqliteSchema(file: string): Schema {
  const db = openDatabase({ file });
  try {
    const tables = db.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      .all() as { name: string }[];
    const schema: Schema = {};
    for (const { name } of tables) {
      if (FTS5_SHADOW_TABLES.includes(name)) continue;
      const columns = db.sqlite.prepare(`SELECT * FROM pragma_table_info(?)`).all(name) as {
        name: string;
        type: string;
        notnull: number;
        dflt_value: string | null;
        pk: number;
      }[];
      const rowidAlias = columns.filter((c) => c.pk > 0).length === 1;
      const references = new Set(
        (
          db.sqlite.prepare('SELECT "from" FROM pragma_foreign_key_list(?)').all(name) as { from: string }[]
        ).map((r) => r.from),
      );
      schema[name] = Object.fromEntries(
        columns.map((c) => {
          const type = c.type.toUpperCase();
          // An INTEGER PRIMARY KEY numbers new rows itself, unless it is another table's key.
          const key = rowidAlias && c.pk > 0 && type === 'INTEGER' && !references.has(c.name);
          const column: Column = {
            // An FTS5 column has no declared type: it holds text.
            type: type === 'INTEGER' ? 'integer' : type === 'BLOB' ? 'bytes' : 'text',
            // A PRIMARY KEY column is never NULL (SQLite allows it only on old non-INTEGER keys).
            notNull: c.notnull === 1 || c.pk > 0,
            default: key ? 'identity' : unquote(c.dflt_value),
          };
          return [c.name, column];
        }),
      );
    }
    return schema;
  } finally {
    void db.close(); // synchronous on SQLite
  }
}

async function postgresSchema(client: pg.Client): Promise<Schema> {
  const { rows } = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: 'YES' | 'NO';
    column_default: string | null;
    is_identity: 'YES' | 'NO';
  }>(
    `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, is_identity
       FROM information_schema.columns
      WHERE table_schema = current_schema()
      ORDER BY table_name, ordinal_position`,
  );
  const schema: Schema = {};
  for (const c of rows) {
    if (POSTGRES_ONLY_COLUMNS.includes(`${c.table_name}.${c.column_name}`)) {
      schema[c.table_name] ??= {};
      continue;
    }
    const type = ['bigint', 'integer', 'smallint'].includes(c.data_type)
      ? 'integer'
      : c.data_type === 'bytea'
        ? 'bytes'
        : ['text', 'citext'].includes(c.udt_name)
          ? 'text'
          : `unmapped ${c.data_type}`;
    (schema[c.table_name] ??= {})[c.column_name] = {
      type: type as Column['type'],
      notNull: c.is_nullable === 'NO',
      // '[]'::text -> []
      default:
        c.is_identity === 'YES' ? 'identity' : unquote(c.column_default?.replace(/::[\w ]+$/, '') ?? null),
    };
  }
  return schema;
}

const unquote = (value: string | null) =>
  value?.startsWith("'") ? value.slice(1, -1).replaceAll("''", "'") : value;

describe('the SQLite and PostgreSQL schemas', () => {
  let dir: string;
  let client: pg.Client;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-parity-'));
    client = new pg.Client({ connectionString: await (await testPostgres()).createDatabase() });
    await client.connect();
    await runPostgresMigrations(client);
  });

  afterAll(async () => {
    await client?.end();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('have the same tables with the same columns, types, NOT NULLs and defaults', async () => {
    const sqlite = sqliteSchema(path.join(dir, 'mailroom.db'));
    const postgres = await postgresSchema(client);
    expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort());
    for (const table of Object.keys(sqlite)) {
      expect({ table, columns: postgres[table] }).toEqual({ table, columns: sqlite[table] });
    }
    // The exceptions are real: a stale entry must not hide a column dropped on one side.
    for (const entry of POSTGRES_ONLY_COLUMNS) {
      const [table, column] = entry.split('.');
      const found = await client.query(
        'SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = $2',
        [table, column],
      );
      expect(found.rowCount, entry).toBe(1);
    }
  });

  it('record the same migration names', async () => {
    const db = openDatabase({ file: path.join(dir, 'names.db') });
    const names = (
      db.sqlite.prepare('SELECT name FROM schema_migrations ORDER BY name').all() as { name: string }[]
    ).map((r) => r.name);
    await db.close();
    const { rows } = await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual(names);
  });

  it('compare text bytewise on PostgreSQL as SQLite does (COLLATE "C" on every text column)', async () => {
    // ISO timestamps, cursors and names then sort and compare the same on both engines, whatever
    // the database's locale.
    const { rows } = await client.query<{ column: string }>(
      `SELECT table_name || '.' || column_name AS column
         FROM information_schema.columns
        WHERE table_schema = current_schema() AND udt_name IN ('text', 'citext')
          AND coalesce(collation_name, '') <> 'C'
          AND table_name <> 'schema_migrations'`,
    );
    expect(rows.map((r) => r.column)).toEqual([]);
  });
});
