#!/usr/bin/env node
// The operator CLI (see docs/operator-interface.md). The TypeScript sources are built into dist/ by `npm ci`.
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
