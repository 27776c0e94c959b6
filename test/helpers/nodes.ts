import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { spawnServe } from './serve-process.js';
import type { ServeProcess } from './serve-process.js';

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface Node extends ServeProcess {
  id: string;
  /** A call to this node's API with the cluster's bootstrap key. */
  api(route: string, init?: { method?: string; body?: unknown }): Promise<Answer>;
  /** A call to this node's admin API (/admin/v1) with the cluster's admin token. */
  admin(route: string, init?: { method?: string; body?: unknown }): Promise<Answer>;
}

export interface Cluster {
  key: string;
  inbox: string;
  nodes: Node[];
  /** Another node on the same database (after a kill, say). */
  add(): Promise<Node>;
  /** The nodes not killed or stopped. */
  running(): Node[];
  /** Rows of a statement on the cluster's database, read behind the nodes' backs (counts a test checks). */
  query<Row extends pg.QueryResultRow>(sql: string): Promise<Row[]>;
  stop(): Promise<void>;
}

const KEY = `mr_live_${'n'.repeat(40)}`;
export const ADMIN_TOKEN = 'nodes-test-admin-token-0123456789';
export const SECRET = 'c'.repeat(64);

/**
 * `count` real `mailroom serve` processes on one PostgreSQL database, each with its own data
 * directory and MAILROOM_NODE_ID, sharing only the database and the secret; the first start
 * bootstraps the inbox `agent@nodes.test` with a known key, the others start on what it made
 * (`atOnce`: all started together on the empty database, racing to bootstrap it).
 */
export async function startCluster(
  databaseUrl: string,
  count: number,
  env: Record<string, string> = {},
  options: { atOnce?: boolean } = {},
): Promise<Cluster> {
  const dirs: string[] = [];
  const nodes: Node[] = [];
  let made = 0;
  const add = async (): Promise<Node> => {
    const id = `node-${++made}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailroom-${id}-`));
    dirs.push(dataDir);
    const serve = await spawnServe({
      MAILROOM_DATABASE_URL: databaseUrl,
      MAILROOM_SECRET: SECRET,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_DOMAIN: 'nodes.test',
      MAILROOM_BOOTSTRAP_KEY: KEY,
      MAILROOM_NODE_ID: id,
      MAILROOM_ADMIN_TOKEN: ADMIN_TOKEN,
      ...env,
    });
    const call = async (url: string, token: string, init: { method?: string; body?: unknown }) => {
      const res = await fetch(url, {
        method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    };
    const node: Node = {
      ...serve,
      id,
      api: (route, init = {}) => call(`${serve.baseUrl}/api/v1${route}`, KEY, init),
      admin: (route, init = {}) => call(`${serve.baseUrl}/admin/v1${route}`, ADMIN_TOKEN, init),
    };
    nodes.push(node);
    return node;
  };
  // One after another: the first start creates the tables and the inbox; or all at once (the
  // first-start race).
  if (options.atOnce) await Promise.all(Array.from({ length: count }, add));
  else for (let i = 0; i < count; i++) await add();
  let client: Promise<pg.Client> | undefined;
  return {
    key: KEY,
    inbox: 'agent@nodes.test',
    nodes,
    add,
    running: () => nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null),
    async query<Row extends pg.QueryResultRow>(sql: string) {
      client ??= (async () => {
        const opened = new pg.Client({ connectionString: databaseUrl });
        await opened.connect();
        return opened;
      })();
      return (await (await client).query<Row>(sql)).rows;
    },
    async stop() {
      await (await client)?.end();
      await Promise.all(
        nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null).map((n) => n.stop()),
      );
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
