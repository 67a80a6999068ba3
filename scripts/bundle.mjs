// Bundles the built service (dist/, from tsc) into dist/phone-verify.mjs, the file bin/phone-verify.js runs.
//
// Why: the service's modules and their dependencies are some 1,450 ES modules (TypeBox alone about 680, Kysely
// 260), and Node resolves, reads and links each one as a process starts. That cost 0.4 to 0.5 s of CPU before any
// command ran; the bundle starts in less than half of it, and in a third with V8's compile cache
// (docs/operations.md, "Start-up"). Every CLI command and every serving process starts from it.
//
// Left outside: the packages in OUTSIDE below, loaded from node_modules as they are. Files read at run time
// (package.json, public/, the Pico CSS in node_modules) are found from src/package-root.ts, which sits at the top
// of dist/ as the bundle does.
import { readFileSync } from 'node:fs';
import { build } from 'esbuild';

// Loaded from node_modules as they are: better-sqlite3 and pg-native load native code; the others find files
// beside their own code (__dirname): Swagger UI's static files, pino's worker threads.
const OUTSIDE = [
  'better-sqlite3',
  'pg-native',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  'pino',
  'thread-stream',
];

await build({
  entryPoints: { 'phone-verify': 'dist/cli/main.js' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  external: [...OUTSIDE],
  // CommonJS dependencies call require() for Node's own modules; an ES module has no require of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  sourcemap: true,
  logLevel: 'warning',
});

// A bundled module that finds files by its own folder would look in dist/ and fail at run time: refuse to build.
const bundle = readFileSync('dist/phone-verify.mjs', 'utf8');
const found = /\b__(dirname|filename)\b/.exec(bundle);
if (found) {
  const before = bundle.slice(0, found.index);
  const module = [...before.matchAll(/^\/\/ (node_modules\/\S+|dist\/\S+)$/gm)].at(-1)?.[1] ?? 'unknown';
  console.error(`scripts/bundle.mjs: ${module} uses ${found[0]}; add its package to OUTSIDE.`);
  process.exit(1);
}
