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
  'src/verification/statuses.ts',
  'src/workspaces/channel-names.ts',
  'src/workspaces/countries.ts',
  'src/workspaces/number-types.ts',
  'src/timeline/event-kinds.ts',
];

test('the lists of names import nothing, so any layer may use them', () => {
  for (const file of CONSTANT_LISTS) assert.deepEqual(importsOf(join(ROOT, file)), [], file);
});

test('store/ imports no feature: only store/, top-level infrastructure (src/*.ts) and the lists of names', () => {
  for (const file of sourceFiles(join(SRC, 'store'))) {
    for (const spec of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = relative(ROOT, join(file, '..', spec)).replace(/\.js$/, '.ts');
      assert.ok(
        target.startsWith('src/store/') || /^src\/[^/]+\.ts$/.test(target) || CONSTANT_LISTS.includes(target),
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
