// `db copy` and `db backup`: moving and keeping the data (docs/operations.md, "Moving and keeping data"). They
// open the databases they name themselves, never the services on DATABASE_URL.
import { backupSqlite } from '../store/backup.js';
import { type CopyReport, copyDatabase } from '../store/copy/copy.js';
import { type DatabaseCommand, required, str } from './options.js';
import { printRecord, printTable } from './output.js';

const flag = { type: 'boolean' } as const;

/** On a terminal, a line per 100,000 rows of a table: a copy of millions of rows takes minutes. */
function progressOnTerminal(): ((table: string, rows: number) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  let current = '';
  let done = 0;
  return (table, rows) => {
    if (table !== current) [current, done] = [table, 0];
    const before = Math.floor(done / 100_000);
    done += rows;
    if (Math.floor(done / 100_000) > before) process.stderr.write(`  ${table}: ${done} rows…\n`);
  };
}

export const DB_COMMANDS: Record<string, DatabaseCommand> = {
  'db copy': {
    usage:
      'db copy --from sqlite:PATH|postgres://… --to sqlite:PATH|postgres://… [--force]\n' +
      '      every table, in one transaction on the target; refuses a target that holds data unless --force\n' +
      "      (which replaces it); the target needs the source's PHONE_VERIFY_SECRET",
    options: { from: str, to: str, force: flag },
    runOnDatabases: (_config, v) =>
      copyDatabase({
        from: required(v, 'from'),
        to: required(v, 'to'),
        force: v.force === true,
        onBatch: progressOnTerminal(),
      }),
    print: (r) => {
      const report = r as CopyReport;
      process.stdout.write(`copied ${report.from} -> ${report.to} (schema ${report.schema})\n\n`);
      printTable([...report.tables, { name: 'total', rows: report.total_rows }], ['name', 'rows']);
      process.stderr.write(
        `\n${report.replaced ? 'What the target held was replaced. ' : ''}Start the service on the target with the source's server secret (PHONE_VERIFY_SECRET, or the generated phone-verify.secret beside the source): codes, sessions and carrier credentials need it.\n`,
      );
    },
  },
  'db backup': {
    usage:
      'db backup --to FILE [--force]\n' +
      '      a consistent copy of the SQLite database, safe while the server runs (PostgreSQL: pg_dump)',
    options: { to: str, force: flag },
    runOnDatabases: (config, v) =>
      backupSqlite({ databaseUrl: config.database.url, to: required(v, 'to'), force: v.force === true }),
    print: (r) => printRecord(r as object),
  },
};
