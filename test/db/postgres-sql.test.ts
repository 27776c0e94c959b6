import { describe, expect, it } from 'vitest';
import { isPostgresUnavailable } from '../../src/db/postgres/errors.js';
import { numberPlaceholders } from '../../src/db/postgres/placeholders.js';
import { withoutPassword } from '../../src/db/postgres/url.js';

describe('raw SQL for PostgreSQL', () => {
  it('numbers each ? parameter, leaving those in strings, identifiers and comments alone', () => {
    expect(numberPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)',
    );
    expect(numberPlaceholders(`SELECT '?', 'it''s ?', "we?ird" FROM t WHERE x = ? -- why?\nAND y = ?`)).toBe(
      `SELECT '?', 'it''s ?', "we?ird" FROM t WHERE x = $1 -- why?\nAND y = $2`,
    );
    expect(numberPlaceholders('SELECT /* ? */ ?')).toBe('SELECT /* ? */ $1');
  });
});

describe('a PostgreSQL URL in messages', () => {
  it('shows no password, in the userinfo or the query', () => {
    expect(withoutPassword('postgres://mailroom:s3cr%40t@db.example:5432/mail?sslmode=require')).toBe(
      'postgres://mailroom@db.example:5432/mail?sslmode=require',
    );
    expect(withoutPassword('postgresql://db.example/mail?user=u&password=hunter2')).not.toContain('hunter2');
  });
});

describe('errors that mean PostgreSQL is unavailable', () => {
  it('are the lost or refused connections and the retryable states, not a wrong query', () => {
    expect(
      isPostgresUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isPostgresUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isPostgresUnavailable({
        code: '57P01',
        message: 'terminating connection due to administrator command',
      }),
    ).toBe(true);
    expect(isPostgresUnavailable({ code: '08006', message: 'connection failure' })).toBe(true);
    expect(
      isPostgresUnavailable({ code: '23505', message: 'duplicate key value violates unique constraint' }),
    ).toBe(false);
    expect(isPostgresUnavailable({ code: '42P01', message: 'relation "nope" does not exist' })).toBe(false);
  });
});
