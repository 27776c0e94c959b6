import { expect, it } from 'vitest';
import { StatementNames } from '../../src/db/postgres/statement-names.js';

/** The name `sql` gets on its `runs`th run (undefined: still unnamed). */
function nameAfter(names: StatementNames, sql: string, runs: number): string | undefined {
  let name: string | undefined;
  for (let i = 0; i < runs; i++) name = names.nameFor(sql);
  return name;
}

// Every named text is a plan kept by each PostgreSQL connection that runs it: how many, and
// which, stays bounded whatever statements the process makes.
it('names at most 200 texts, none longer than 16,000 characters, and keeps a missing one unnamed', () => {
  const names = new StatementNames();
  expect(nameAfter(names, 'SELECT 1 WHERE ? = 1', 4)).toBeUndefined();
  expect(nameAfter(names, 'SELECT 1 WHERE ? = 1', 1)).toMatch(/^mailroom_\d+$/);
  const long = `SELECT id FROM messages WHERE id IN (${Array(8_000).fill('?').join(', ')})`;
  expect(nameAfter(names, long, 10)).toBeUndefined();
  names.unname('SELECT 1 WHERE ? = 1');
  expect(nameAfter(names, 'SELECT 1 WHERE ? = 1', 10)).toBeUndefined();
  for (let i = 2; i <= 200; i++) expect(nameAfter(names, `SELECT ${i}`, 5)).toBeDefined();
  expect(nameAfter(names, 'SELECT 201', 5)).toBeUndefined();
});
