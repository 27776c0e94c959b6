import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Upgraded } from '../helpers/migrated-from.js';
import { migratedFrom } from '../helpers/migrated-from.js';

const AT = "'2026-01-01T00:00:00.000Z'";
const sent = (minute: number) => `'2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z'`;

/** Two inboxes' send logs before migration 028, inserted out of time order (ids do not follow sent_at). */
const BEFORE = [
  `INSERT INTO users (id, name, created_at) VALUES (1, 'owner', ${AT})`,
  ...[1, 2].map(
    (id) =>
      `INSERT INTO inboxes (id, address, user_id, kind, created_at) VALUES (${id}, 'agent${id}@mailroom.test', 1, 'local', ${AT})`,
  ),
  ...[
    [1, 'b@example.com', 5],
    [1, 'a@example.com', 1],
    [2, 'a@example.com', 2],
    [1, 'a@example.com', 9],
    [1, 'b@example.com', 3],
  ].map(
    ([inbox, address, minute]) =>
      `INSERT INTO send_log (inbox_id, address, sent_at) VALUES (${inbox}, '${address}', ${sent(minute as number)})`,
  ),
];

// Migration 028 numbers the rows already counted, in time order, per inbox and per address:
// the counts read off the totals afterwards are those a scan gave before.
describe('migration 028 on a send log of two inboxes', () => {
  let upgraded: Upgraded;
  beforeAll(async () => {
    upgraded = await migratedFrom('028', BEFORE);
  });
  afterAll(() => upgraded?.close());

  it('gives each row its running totals in time order', async () => {
    const rows = await upgraded.query(
      'SELECT inbox_id, address, sent_at, inbox_total, address_total FROM send_log ORDER BY inbox_id, sent_at',
    );
    expect(
      rows.map((r) => [Number(r.inbox_id), r.address, Number(r.inbox_total), Number(r.address_total)]),
    ).toEqual([
      [1, 'a@example.com', 1, 1],
      [1, 'b@example.com', 2, 1],
      [1, 'b@example.com', 3, 2],
      [1, 'a@example.com', 4, 2],
      [2, 'a@example.com', 1, 1],
    ]);
  });
});
