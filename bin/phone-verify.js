#!/usr/bin/env node
// The operator CLI (see README.md, "Operator CLI"). The TypeScript sources are built into dist/ by `npm ci`.

// better-sqlite3 is a Node-API 10 module: a Node without it (before 22.14) crashes without a word when the store
// opens, so refuse with a reason first. The CLI is imported only after this check.
if (!(Number(process.versions.napi) >= 10)) {
  console.error(`phone-verify needs Node.js 22 (22.14 or later) or 24; this is Node.js ${process.version}.`);
  process.exit(1);
}
const { main } = await import('../dist/cli/main.js');

process.exitCode = await main(process.argv.slice(2));
