import { cliIo } from './io.js';

/** Prints a result as JSON (--json) or as aligned text lines. */
export function print(json: boolean, data: unknown, text: () => string): void {
  cliIo().stdout.write(json ? `${JSON.stringify(data, null, 2)}\n` : `${text()}\n`);
}

export function table(rows: object[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => String((r as Record<string, unknown>)[c] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}
