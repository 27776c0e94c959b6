import { describe, expect, it } from 'vitest';
import {
  formatAddress,
  isValidAddress,
  normalizeAddress,
  parseAddressList,
  splitTag,
} from '../../src/mail/addresses.js';

describe('parseAddressList', () => {
  it('parses names, quoted names with commas and bare addresses', () => {
    expect(
      parseAddressList('"Doe, John" <john@Example.ORG>, bob@mailroom.test, Alice <Alice@Example.com>'),
    ).toEqual([
      { address: 'john@example.org', name: 'Doe, John' },
      { address: 'bob@mailroom.test', name: '' },
      { address: 'Alice@example.com', name: 'Alice' },
    ]);
  });

  it('flattens groups and drops empty ones', () => {
    expect(parseAddressList('Team: a@x.example, "B" <b@x.example>;, undisclosed-recipients:;')).toEqual([
      { address: 'a@x.example', name: '' },
      { address: 'b@x.example', name: 'B' },
    ]);
  });

  it('accepts several header values and decodes encoded-word names', () => {
    expect(parseAddressList(['=?UTF-8?Q?J=C3=BCrgen?= <j@x.example>', 'c@y.example'])).toEqual([
      { address: 'j@x.example', name: 'Jürgen' },
      { address: 'c@y.example', name: '' },
    ]);
  });

  it('returns nothing for empty input', () => {
    expect(parseAddressList('')).toEqual([]);
    expect(parseAddressList([])).toEqual([]);
    expect(parseAddressList('   ')).toEqual([]);
  });
});

describe('isValidAddress', () => {
  it.each([
    'a@example.com',
    'first.last+tag@sub.example.co.uk',
    'x@mailroom.test',
    "o'brien@example.ie",
    'ü@bücher.de',
  ])('%j is valid', (address) => expect(isValidAddress(address)).toBe(true));

  it.each([
    '',
    'plain',
    '@example.com',
    'a@',
    'a@localhost',
    'a@b@example.com',
    'a b@example.com',
    'a@exa mple.com',
    '.a@example.com',
    'a.@example.com',
    'a..b@example.com',
    'a@example..com',
    'a@-example.com',
    'a@example.com.',
    '<a@example.com>',
    `${'l'.repeat(65)}@example.com`,
    `a@${'d'.repeat(64)}.com`,
    `a@${'d.'.repeat(130)}com`,
  ])('%j is invalid', (address) => expect(isValidAddress(address)).toBe(false));
});

describe('normalizeAddress', () => {
  it('trims and lower-cases the whole address', () => {
    expect(normalizeAddress('  Bob.Builder@MailRoom.Test ')).toBe('bob.builder@mailroom.test');
  });
});

describe('splitTag', () => {
  it.each([
    ['name+tag@example.com', { base: 'name@example.com', tag: 'tag' }],
    ['name+a+b@example.com', { base: 'name@example.com', tag: 'a+b' }],
    ['name@example.com', { base: 'name@example.com', tag: null }],
    ['name+@example.com', { base: 'name@example.com', tag: null }],
    ['+tag@example.com', { base: '+tag@example.com', tag: null }],
  ])('%j', (input, expected) => expect(splitTag(input)).toEqual(expected));
});

describe('formatAddress', () => {
  it('quotes and escapes the display name', () => {
    expect(formatAddress({ name: 'Alice Example', address: 'alice@example.com' })).toBe(
      '"Alice Example" <alice@example.com>',
    );
    expect(formatAddress({ name: 'Doe, "JD" \\ John', address: 'j@example.com' })).toBe(
      '"Doe, \\"JD\\" \\\\ John" <j@example.com>',
    );
  });

  it('gives the bare address without a name and strips line breaks', () => {
    expect(formatAddress({ name: '', address: 'a@example.com' })).toBe('a@example.com');
    expect(formatAddress({ name: '  ', address: 'a@example.com' })).toBe('a@example.com');
    expect(formatAddress({ name: 'Evil\r\nBcc: x@y.z', address: 'a@example.com' })).toBe(
      '"Evil Bcc: x@y.z" <a@example.com>',
    );
  });

  it('round-trips through parseAddressList', () => {
    const original = { name: 'Doe, "JD"', address: 'j@example.com' };
    expect(parseAddressList(formatAddress(original))).toEqual([original]);
  });
});
