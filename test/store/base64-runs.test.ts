import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeBase64Runs, encodeBase64Runs } from '../../src/store/base64-runs.js';

const decode = (raw: Buffer) => Buffer.concat(decodeBase64Runs(raw));
/** How many runs the decoded form holds. */
const runsIn = (decoded: Buffer) => decoded.readUInt32LE(0);

function emlFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return emlFiles(file);
    return file.endsWith('.eml') ? [file] : [];
  });
}

/** A part of `bytes` in base64, in lines of `lineLength` ended by `eol`. */
function base64Part(bytes: Buffer, lineLength = 76, eol = '\r\n'): string {
  const text = bytes.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < text.length; i += lineLength) lines.push(text.slice(i, i + lineLength));
  return lines.map((line) => line + eol).join('');
}

const message = (...bodies: string[]) =>
  Buffer.from(
    'From: a@example.com\r\nSubject: parts\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n' +
      bodies.map((body) => `--b\r\nContent-Transfer-Encoding: base64\r\n\r\n${body}`).join('') +
      '--b--\r\n',
    'latin1',
  );

const bytes = (n: number, seed = 7) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + (i >> 7)) & 0xff));

describe('a source with its base64 decoded (migration 030)', () => {
  it('gives back every fixture byte for byte, and decodes the attachments of some', () => {
    const files = emlFiles('fixtures');
    let decoded = 0;
    for (const file of files) {
      const raw = fs.readFileSync(file);
      const form = decode(raw);
      expect(encodeBase64Runs(form).equals(raw), file).toBe(true);
      if (runsIn(form) > 0) decoded++;
    }
    expect(files.length).toBeGreaterThan(50);
    expect(decoded).toBeGreaterThan(5);
  });

  it('keeps an attachment as the bytes it stands for: about three quarters of its base64', () => {
    const attachment = bytes(30_000);
    const raw = message(base64Part(attachment), base64Part(bytes(5_000, 3), 64));
    const form = decode(raw);
    expect(runsIn(form)).toBe(2);
    expect(form.indexOf(attachment)).toBeGreaterThan(0);
    expect(form.length).toBeLessThan(raw.length * 0.8);
    expect(encodeBase64Runs(form).equals(raw)).toBe(true);
  });

  it('leaves as it is what would not come back the same, and gives it back whole', () => {
    const part = base64Part(bytes(3_001));
    /** Each source's body, and how many runs are taken from it. */
    const cases: Record<string, [string, number]> = {
      'a part as base64 encoders write it': [part, 1],
      'no padding on the last line': [part.replace(/=+\r\n$/, '\r\n'), 0],
      'spare bits set in the last group': [part.replace(/.(=+)\r\n$/, 'B$1\r\n'), 0],
      'bare LF line ends': [base64Part(bytes(3_001), 76, '\n'), 0],
      'two parts back to back, padding between them': [
        base64Part(bytes(1_001)) + base64Part(bytes(2_000)),
        2,
      ],
      'a line too short to count': ['deadbeef\r\n', 0],
      'a run cut short of its CRLF': [part.slice(0, 1_500), 1],
    };
    for (const [what, [body, runs]] of Object.entries(cases)) {
      const raw = message(body);
      const form = decode(raw);
      expect(encodeBase64Runs(form).equals(raw), what).toBe(true);
      expect(runsIn(form), what).toBe(runs);
    }
  });

  it('gives back a piece of a source cut anywhere, as the store cuts big sources', () => {
    const raw = message(base64Part(bytes(50_000)), 'plain words\r\n', base64Part(bytes(20_000, 5), 72));
    for (const cut of [1, 100, 1_234, 33_333, 40_000, raw.length - 5]) {
      for (const piece of [raw.subarray(0, cut), raw.subarray(cut)])
        expect(encodeBase64Runs(decode(piece)).equals(piece)).toBe(true);
    }
  });

  it('leaves short runs and mail without base64 as they are, with a 4-byte head', () => {
    const plain = Buffer.from('Subject: hi\r\n\r\nQUJD\r\nRUZH\r\n', 'latin1');
    expect(decode(plain)).toEqual(Buffer.concat([Buffer.alloc(4), plain]));
    const small = message(base64Part(bytes(300)));
    expect(runsIn(decode(small))).toBe(0);
  });
});
