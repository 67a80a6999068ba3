// The two ends of a copy as the operator names them (`sqlite:PATH`, `postgres://…`), checked before anything is
// opened, and how they are shown: a PostgreSQL password never reaches the output or an error.
import { resolve } from 'node:path';
import { invalidField } from '../../errors.js';

export type Endpoint =
  | { readonly dialect: 'sqlite'; readonly path: string; readonly shown: string }
  | { readonly dialect: 'postgres'; readonly url: string; readonly shown: string };

/** Longer than any path or URL an operator types: a value past it is a mistake, refused before use. */
const MAX_LENGTH = 4096;

/** `postgres://user:***@host/db`: the URL without its password (and without the query, which may hold one). */
export function redactUrl(url: URL): string {
  const shown = new URL(url.toString());
  if (shown.password !== '') shown.password = '***';
  shown.search = '';
  return shown.toString();
}

export function parseEndpoint(field: 'from' | 'to' | 'database', value: string): Endpoint {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL above all) are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) throw invalidField(field, 'must not hold control characters');
  if (value.length > MAX_LENGTH) throw invalidField(field, `must be at most ${MAX_LENGTH} characters`);
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (path === '' || path === ':memory:')
      throw invalidField(field, 'an in-memory database holds nothing to copy: give sqlite:PATH to a file');
    const absolute = resolve(path);
    return { dialect: 'sqlite', path: absolute, shown: `sqlite:${absolute}` };
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      // The value itself is not repeated: it may hold a password.
      throw invalidField(field, 'is not a valid postgres:// URL');
    }
    if (url.pathname === '/' || url.pathname === '')
      throw invalidField(field, 'name the database: postgres://user@host:5432/DATABASE');
    return { dialect: 'postgres', url: value, shown: redactUrl(url) };
  }
  throw invalidField(field, 'must start with sqlite:, postgres:// or postgresql://');
}
