// `db copy`: every table of one database into another (SQLite or PostgreSQL, either way), the rows as they are
// (ids, timestamps, hashes and sealed values byte for byte), read in one snapshot of the source and written in
// one transaction on the target, then counted on both sides. The tables come from the databases, in the order
// of their foreign keys, so a table a later migration adds is copied with no change here.
import { AppError } from '../../errors.js';
import { type Endpoint, parseEndpoint } from './endpoint.js';
import type { SourceEnd, TargetEnd } from './ends.js';
import { openPostgresSource, openPostgresTarget } from './postgres-end.js';
import { KEPT_BY_TRIGGERS, orderByReferences, schemaDifferences } from './schema.js';
import { migratedSchema, openSqliteSource, openSqliteTarget } from './sqlite-end.js';

/** Rows read and written at a time: memory stays bounded whatever the size of a table. */
export const DEFAULT_BATCH_ROWS = 1000;

export interface CopyOptions {
  from: string;
  to: string;
  /** Replace what the target holds (deleted in the copy's own transaction) instead of refusing. */
  force?: boolean;
  batchRows?: number;
  /** Each batch once written: the table and its number of rows. The copy waits for what it returns. */
  onBatch?: (table: string, rows: number) => void | Promise<void>;
}

export interface CopyReport {
  from: string;
  to: string;
  /** The last migration both databases are at. */
  schema: string;
  /** Whether the target held data that --force replaced. */
  replaced: boolean;
  tables: { name: string; rows: number }[];
  total_rows: number;
}

function openSource(end: Endpoint): Promise<SourceEnd> | SourceEnd {
  return end.dialect === 'sqlite'
    ? openSqliteSource(end.path, end.shown)
    : openPostgresSource(end.url, end.shown);
}

function openTarget(end: Endpoint): Promise<TargetEnd> | TargetEnd {
  return end.dialect === 'sqlite' ? openSqliteTarget(end.path) : openPostgresTarget(end.url, end.shown);
}

/** The source must be at exactly this build's migrations: the target is migrated by this build. */
function checkVersion(source: string, applied: string[], build: string[]): void {
  const unknown = applied.filter((name) => !build.includes(name));
  if (unknown.length > 0)
    throw new AppError(
      'conflict',
      `${source} has migrations this build does not know (${unknown.join(', ')}): copy it with the phone-verify version that applied them`,
    );
  const missing = build.filter((name) => !applied.includes(name));
  if (missing.length > 0)
    throw new AppError(
      'conflict',
      `${source} is at migration ${applied.at(-1) ?? '(none)'}, this build at ${build.at(-1)}: start this version's server on it once (it applies ${missing.join(', ')}), or copy with the version that made it`,
    );
}

export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const from = parseEndpoint('from', options.from);
  const to = parseEndpoint('to', options.to);
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;
  const build = await migratedSchema();
  const source = await openSource(from);
  try {
    const target = await openTarget(to);
    try {
      if (target.identity !== undefined && target.identity === source.identity)
        throw new AppError('conflict', `--from and --to are the same database (${to.shown})`);
      checkVersion(from.shown, await source.migrations(), build.migrations);
      await target.migrate();
      const tables = orderByReferences(await target.tables());
      const differences = schemaDifferences(await source.tables(), tables);
      if (differences.length > 0)
        throw new AppError('conflict', `the two schemas differ: ${differences.join('; ')}`);
      const report: CopyReport['tables'] = [];
      const holding: string[] = [];
      try {
        await target.begin(tables);
        // Counted under the copy's locks: a second copy into the same target waits, then finds this one's rows.
        // Rows the migrations themselves put there (the read-models' watermarks) are not data.
        for (const table of tables) {
          const rows = await target.count(table);
          if (rows > (build.seeded.get(table.name) ?? 0)) holding.push(`${table.name}: ${rows}`);
        }
        if (holding.length > 0 && !options.force)
          throw new AppError(
            'conflict',
            `${to.shown} already holds data (${holding.join(', ')}): pass --force to replace it, or copy into an empty database`,
          );
        await target.clear(tables);
        for (const table of tables) {
          if (KEPT_BY_TRIGGERS[table.name]) await target.clear([table]);
          let rows = 0;
          for await (const batch of source.batches(table, batchRows)) {
            await target.insert(table, batch);
            rows += batch.length;
            await options.onBatch?.(table.name, batch.length);
          }
          const written = await target.count(table);
          if (written !== rows)
            throw new Error(`${table.name}: ${rows} rows read but ${written} in the target`);
          report.push({ name: table.name, rows });
        }
        await target.finish(tables);
        await target.commit();
      } catch (err) {
        await target.rollback();
        if (err instanceof AppError) throw err;
        const reason = err instanceof Error ? err.message : String(err);
        throw new AppError(
          'conflict',
          `the copy failed and was rolled back (${to.shown} is as it was): ${reason}`,
        );
      }
      return {
        from: from.shown,
        to: to.shown,
        schema: build.migrations.at(-1) ?? '',
        replaced: holding.length > 0,
        tables: report,
        total_rows: report.reduce((sum, t) => sum + t.rows, 0),
      };
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
