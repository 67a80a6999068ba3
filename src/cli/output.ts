// CLI output: with --json, stdout holds exactly one JSON value; otherwise short human-readable lines.
import type { CliErrorCode } from '../errors.js';

export class UsageError extends Error {}

/** The command ran and its answer is a failure (exit 1), with its own code (`carrier test`: credentials_refused). */
export class CommandFailed extends Error {
  readonly code: CliErrorCode;
  constructor(code: CliErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Aligned `key  value` lines for one record. */
export function printRecord(record: object): void {
  const entries = Object.entries(record);
  const width = Math.max(...entries.map(([k]) => k.length));
  for (const [key, value] of entries) {
    const shown = Array.isArray(value) ? value.join(',') : value === null ? '-' : String(value);
    process.stdout.write(`${key.padEnd(width)}  ${shown}\n`);
  }
}

/** A table of records, one line each, with the given columns. */
export function printTable(rows: object[], columns: string[]): void {
  if (rows.length === 0) {
    process.stdout.write('(none)\n');
    return;
  }
  const cell = (row: object, col: string) => {
    const v = (row as Record<string, unknown>)[col];
    return Array.isArray(v) ? v.join(',') : v === null || v === undefined ? '-' : String(v);
  };
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r, c).length)));
  const line = (values: string[]) =>
    `${values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd()}\n`;
  process.stdout.write(line(columns));
  for (const row of rows) process.stdout.write(line(columns.map((c) => cell(row, c))));
}
