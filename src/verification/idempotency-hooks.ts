// The Idempotency-Key header on a route (POST /v1/otp/send), as three route hooks around its handler: the header is
// checked before the body is read and the body's raw bytes are hashed as they are read (preParsing); the key is
// taken, or the stored answer replayed, once the body is valid (preHandler); the answer is stored as it leaves
// (onSend). A request without the header passes each hook at once: no statement, no promise.
import { createHash, type Hash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RequestPayload } from 'fastify';
import { AppError } from '../errors.js';
import { principalOf } from '../keys/auth-hook.js';
import type { Claim, Idempotency } from './idempotency.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENCY_KEY_PATTERN } from './schemas.js';

const HEADER = 'idempotency-key';
/** Stripe's name for it: the answer is the stored one, not the outcome of running the request again. */
export const REPLAYED_HEADER = 'idempotent-replayed';

const badKey = (message: string) =>
  new AppError('invalid_request', `Idempotency-Key ${message}.`, {
    errors: [{ field: 'Idempotency-Key', message }],
  });

/**
 * How many Idempotency-Key headers the request carries. From the raw header list: Node joins two of them with a
 * comma, so the parsed headers cannot tell one "a, b" from two.
 */
function headerCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] ?? '';
    if (name.length === HEADER.length && name.toLowerCase() === HEADER) count++;
  }
  return count;
}

/** The request's key; undefined without the header; a 400 naming the header for a key that breaks the rules. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers[HEADER];
  if (value === undefined) return undefined;
  // Which of two keys would be the request's? Neither: the client must say.
  if (typeof value !== 'string' || headerCount(request) > 1) throw badKey('must be sent once');
  if (value.length === 0) throw badKey('must not be empty');
  if (value.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw badKey(`must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`);
  }
  if (!IDEMPOTENCY_KEY_PATTERN.test(value)) {
    throw badKey('must be printable ASCII characters (spaces only between them)');
  }
  return value;
}

/** The content type an answer of this status was sent with (http/problem.ts sends every error). */
function contentTypeOf(status: number): string {
  return status < 400 ? 'application/json; charset=utf-8' : 'application/problem+json; charset=utf-8';
}

export function idempotencyHooks(idempotency: Idempotency) {
  // Per request, without decorating every request: the hash of a keyed request's body, then its claim.
  const hashes = new WeakMap<FastifyRequest, { key: string; hash: Hash }>();
  const claims = new WeakMap<FastifyRequest, Claim>();

  return {
    preParsing(
      request: FastifyRequest,
      _reply: FastifyReply,
      payload: RequestPayload,
      done: (err?: Error | null, payload?: RequestPayload) => void,
    ): void {
      let key: string | undefined;
      try {
        key = idempotencyKeyOf(request);
      } catch (err) {
        done(err as Error);
        return;
      }
      if (key === undefined) {
        done(null, payload);
        return;
      }
      // The fingerprint: the method, the route and the body's bytes exactly as sent (docs/api.md says why).
      const hash = createHash('sha256').update(`${request.method} ${request.routeOptions.url}\n`);
      hashes.set(request, { key, hash });
      const tap = new Transform({
        transform(chunk: Buffer, _encoding, next) {
          hash.update(chunk);
          next(null, chunk);
        },
      });
      // A request that fails (the client went away) fails the tap too, so the body reader never waits on it.
      payload.on('error', (err) => tap.destroy(err));
      payload.pipe(tap);
      done(null, tap);
    },

    preHandler(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
      const keyed = hashes.get(request);
      if (!keyed) {
        done();
        return;
      }
      const { workspaceId, mode } = principalOf(request);
      idempotency.begin(workspaceId, keyed.key, keyed.hash.digest('hex'), mode).then((begun) => {
        if ('claim' in begun) {
          claims.set(request, begun.claim);
          done();
          return;
        }
        // Answered here: the handler never runs, so nothing is sent, superseded or counted.
        const { status, body } = begun.replay;
        reply.code(status).type(contentTypeOf(status)).header(REPLAYED_HEADER, 'true').send(body);
      }, done);
    },

    onSend(
      request: FastifyRequest,
      reply: FastifyReply,
      payload: unknown,
      done: (err: Error | null, payload?: unknown) => void,
    ): void {
      const claim = claims.get(request);
      if (!claim) {
        done(null, payload);
        return;
      }
      claims.delete(request);
      const body = typeof payload === 'string' ? payload : undefined;
      // An answer with Retry-After (a range blocked for now) is released like a 429.
      const saysLater = reply.getHeader('retry-after') !== undefined;
      idempotency.finish(claim, reply.statusCode, body, saysLater).then(
        () => done(null, payload),
        (err: unknown) => {
          // The send itself happened; its answer goes out. The key stays in flight until its lease ends.
          request.log.warn({ err }, 'the answer under an Idempotency-Key could not be stored');
          done(null, payload);
        },
      );
    },
  };
}
