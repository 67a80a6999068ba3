// The package's own folder (where package.json, public/ and node_modules/ are), one folder above this module in
// src/ and dist/ alike, and above the bundle in dist/ too (scripts/bundle.mjs): keep this module at the top of src.
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT: string = fileURLToPath(new URL('..', import.meta.url));
