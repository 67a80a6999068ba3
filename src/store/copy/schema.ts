// The tables a copy moves, read from the databases themselves (never a list written here): every base table but
// the migrator's own, its columns in order, and the tables it references, so parents are written before the
// rows that point at them. A table added by a future migration is copied with no change to this code.

/** Kysely's bookkeeping: the migrator writes these itself on each side. */
export const MIGRATOR_TABLES: readonly string[] = ['kysely_migration', 'kysely_migration_lock'];

/**
 * Tables that triggers keep from another table's writes (migration 0017), by the table they follow: each is copied
 * after that one, and what the triggers made of the copied rows is cleared first, so the copy is the source's own.
 */
export const KEPT_BY_TRIGGERS: Readonly<Record<string, string>> = { verification_counts: 'verifications' };

export interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
  /** The other tables its foreign keys point at. */
  readonly references: readonly string[];
}

/** An identifier quoted for SQL: both dialects take "double quotes", a quote inside doubled. */
export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Parents before children (a foreign key's table first), otherwise by name, so every run copies in the same
 * order. A cycle (none today) keeps its tables in name order: SQLite defers the check to the commit, PostgreSQL
 * refuses the row, and the copy rolls back saying so.
 */
export function orderByReferences(tables: readonly TableShape[]): TableShape[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const done = new Set<string>();
  const visiting = new Set<string>();
  const ordered: TableShape[] = [];
  const visit = (table: TableShape) => {
    if (done.has(table.name) || visiting.has(table.name)) return;
    visiting.add(table.name);
    const follows = KEPT_BY_TRIGGERS[table.name];
    for (const parent of [...table.references, ...(follows ? [follows] : [])].sort()) {
      const shape = byName.get(parent);
      if (shape && parent !== table.name) visit(shape);
    }
    visiting.delete(table.name);
    done.add(table.name);
    ordered.push(table);
  };
  for (const table of [...tables].sort((a, b) => a.name.localeCompare(b.name))) visit(table);
  return ordered;
}

/** What differs between the two sides' tables and columns, in words; empty when they match. */
export function schemaDifferences(source: readonly TableShape[], target: readonly TableShape[]): string[] {
  const differences: string[] = [];
  const sourceByName = new Map(source.map((t) => [t.name, t]));
  const targetByName = new Map(target.map((t) => [t.name, t]));
  for (const t of source)
    if (!targetByName.has(t.name)) differences.push(`table ${t.name} is only in the source`);
  for (const t of target) {
    const s = sourceByName.get(t.name);
    if (!s) {
      differences.push(`table ${t.name} is only in the target`);
      continue;
    }
    const missing = t.columns.filter((c) => !s.columns.includes(c));
    const extra = s.columns.filter((c) => !t.columns.includes(c));
    if (missing.length > 0) differences.push(`${t.name}: the source lacks ${missing.join(', ')}`);
    if (extra.length > 0) differences.push(`${t.name}: the target lacks ${extra.join(', ')}`);
  }
  return differences;
}
