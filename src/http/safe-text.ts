// Text the service can store, checked once where it enters. Two kinds of string are refused: with NUL (U+0000),
// which PostgreSQL's text types cannot hold (it fails the whole statement: a 500 for any id or field that reached
// a query), and with an unpaired surrogate, which is not Unicode (JSON's "\ud800" parses to one) and so has no
// UTF-8: the drivers would store U+FFFD in its place, and a key or id read back would not be what was sent.
// One hook on every route (the API, the webhooks, the dashboard) looks at every string of the path parameters,
// the query (unless the route reads it tolerantly: the dashboard's filters) and the body, object keys included,
// before validation, so no route, schema or form can forget it; nothing refused here reaches a statement.
import type { FastifyInstance } from 'fastify';
import { AppError, invalidField } from '../errors.js';

export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

export function isSafeText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/**
 * Where the first unsafe string in `value` is: its dotted path ('metadata.tags.0'; a key counts as its object's
 * path, '' is `value` itself), or undefined when every string is safe. A loop, not recursion: a 16 KiB JSON body
 * can nest thousands of levels deep, past the call stack.
 */
export function unsafeTextPath(value: unknown): string | undefined {
  const pending: { value: unknown; path: string }[] = [{ value, path: '' }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value === 'string') {
      if (!isSafeText(next.value)) return next.path;
    } else if (typeof next.value === 'object' && next.value !== null) {
      for (const [key, inner] of Object.entries(next.value)) {
        if (!isSafeText(key)) return next.path;
        pending.push({ value: inner, path: next.path === '' ? key : `${next.path}.${key}` });
      }
    }
  }
  return undefined;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route reads its query tolerantly: the dashboard's filters and search box keep only what they can use
     * (digits, names from a fixed list) and show the rest back escaped, so nothing typed there reaches a statement.
     */
    tolerantQuery?: boolean;
  }
}

/**
 * Refuses unsafe text anywhere in a request's input. In the path it is a 404 not_found, as for any id that is not
 * id-shaped: no resource is named so. In the query (unless the route reads it tolerantly) or the body it is a 400
 * invalid_request naming the field.
 */
export function refuseUnsafeText(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    if (unsafeTextPath(request.params) !== undefined) {
      return done(new AppError('not_found', 'Not found: no id holds NUL characters or unpaired surrogates.'));
    }
    const query = request.routeOptions.config.tolerantQuery ? undefined : unsafeTextPath(request.query);
    if (query !== undefined) return done(invalidField(query || 'querystring', UNSAFE_TEXT_MESSAGE));
    const body = unsafeTextPath(request.body);
    if (body !== undefined) return done(invalidField(body || 'body', UNSAFE_TEXT_MESSAGE));
    done();
  });
}
