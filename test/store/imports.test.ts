// One source per concept, kept by the imports themselves: the table types take their fixed sets of names from the
// same lists the schemas and services use, and those lists import nothing, so store/ never imports upward into a
// feature; libphonenumber is imported by the phone module alone.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'([^']+)'/gms)].map((m) => m[1] ?? '');
}

const CONSTANT_LISTS = [
  'src/vocabulary/statuses.ts',
  'src/vocabulary/channels.ts',
  'src/vocabulary/countries.ts',
  'src/vocabulary/number-types.ts',
  'src/vocabulary/event-kinds.ts',
  'src/vocabulary/audit-actions.ts',
  'src/vocabulary/refusal-reasons.ts',
  'src/vocabulary/webhook-events.ts',
  'src/vocabulary/modes.ts',
];

test('the lists of names (src/vocabulary/) import nothing, so any layer may use them', () => {
  assert.deepEqual(
    sourceFiles(join(SRC, 'vocabulary'))
      .map((f) => relative(ROOT, f))
      .sort(),
    [...CONSTANT_LISTS].sort(),
  );
  for (const file of CONSTANT_LISTS) assert.deepEqual(importsOf(join(ROOT, file)), [], file);
});

test('carrier accounts import nothing from delivery: delivery uses accounts, never the reverse', () => {
  for (const file of sourceFiles(join(SRC, 'carrier-accounts'))) {
    for (const spec of importsOf(file))
      assert.ok(!spec.includes('/delivery/'), `${relative(ROOT, file)} imports ${spec}`);
  }
});

test('store/ imports no feature: only store/, top-level infrastructure (src/*.ts) and the vocabulary', () => {
  for (const file of sourceFiles(join(SRC, 'store'))) {
    for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = relative(ROOT, join(file, '..', spec)).replace(/\.js$/, '.ts');
      assert.ok(
        target.startsWith('src/store/') ||
          /^src\/[^/]+\.ts$/.test(target) ||
          target.startsWith('src/vocabulary/'),
        `${relative(ROOT, file)} imports ${spec}`,
      );
    }
  }
});

test('libphonenumber is imported by src/workspaces/phone-number.ts alone', () => {
  const importers = sourceFiles(SRC)
    .filter((file) => importsOf(file).some((spec) => spec.startsWith('libphonenumber-js')))
    .map((file) => relative(ROOT, file));
  assert.deepEqual(importers, ['src/workspaces/phone-number.ts']);
});
