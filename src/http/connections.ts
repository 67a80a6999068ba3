// What one client may hold of a serving process: a request must arrive whole within REQUEST_TIMEOUT_MS, and a
// process holds at most MAX_CONNECTIONS connections, so slow or idle clients cannot use up its descriptors
// (docs/operations.md#connections-and-timeouts). Node does the work; this sets it up.
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';

/**
 * How often Node looks for requests past their time. Its default, 30 s, would let a request run up to 30 s past
 * REQUEST_TIMEOUT_MS; the check walks only the connections in the middle of a request, so once a second is cheap.
 */
export const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * Fastify's options for the request timeout. Node applies `requestTimeout` to the whole request and
 * `headersTimeout` to its headers, but where the headers' limit is the longer (its default, 60 s, against 30 s)
 * it swaps the two: the request would get 60 s. So both are the one limit. (Fastify sets only requestTimeout,
 * and leaves it off by default.)
 */
export function requestTimeoutOptions(requestTimeoutMs: number) {
  return {
    requestTimeout: requestTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: requestTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
    },
  };
}

/**
 * An answer sent before its request's body has arrived (a 401 from the key check, a 415) closes the connection:
 * Node would otherwise read and discard the rest of the body for as long as the client takes to send it, and keep
 * the connection for the next request. A request without a body, or whose body is all there, keeps it.
 */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const { headers } = request.raw;
    const declaresBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
    // `complete`: Node has parsed the whole request (an injected request, with no connection, has no such flag).
    if (!declaresBody || request.raw.complete !== false) {
      done(null, payload);
      return;
    }
    // An answer given at once (no key) comes while Node is still parsing the bytes that brought the request, the
    // body among them: look once they are parsed.
    setImmediate(() => {
      if (request.raw.complete === false) reply.header('connection', 'close');
      done(null, payload);
    });
  });
}

/**
 * Whether `error` is the request's connection closing before its body had all arrived (the client went away, or
 * REQUEST_TIMEOUT_MS cut it). Node reports that as an "aborted" ECONNRESET, which would otherwise read as the
 * database's connection failing; and there is no one left to answer.
 */
export function isAbandonedRequest(error: unknown, request: FastifyRequest): boolean {
  return request.raw.readableAborted && (error as { code?: unknown } | null)?.code === 'ECONNRESET';
}

/** How often a process says it refused connections at MAX_CONNECTIONS (each line counts those since the last). */
const REFUSALS_LOGGED_EVERY_MS = 10_000;

/**
 * At most `maxConnections` open connections: Node closes each one past that as it accepts it, unanswered, until
 * one closes. Refusals are logged at warn, at most one line every 10 s.
 */
export function limitConnections(server: Server, maxConnections: number, log: FastifyBaseLogger): void {
  server.maxConnections = maxConnections;
  let refused = 0;
  let loggedAt = Number.NEGATIVE_INFINITY;
  server.on('drop', () => {
    refused++;
    const now = performance.now();
    if (now - loggedAt < REFUSALS_LOGGED_EVERY_MS) return;
    log.warn(
      { refused, max_connections: maxConnections },
      `connections refused: MAX_CONNECTIONS (${maxConnections}) connections are open`,
    );
    loggedAt = now;
    refused = 0;
  });
}

/** Descriptors kept for everything but client connections: the database, log and standard streams, Node's own. */
const RESERVED_DESCRIPTORS = 64;
/** Where the descriptor limit is unknown (not Linux), and the most the default allows. */
export const MAX_CONNECTIONS_CEILING = 10_000;

export interface ConnectionLimit {
  maxConnections: number;
  /** The descriptors the process may open, where known. */
  descriptorLimit: number | undefined;
  /** MAX_CONNECTIONS was set higher than the descriptor limit leaves room for. */
  beyondDescriptors: boolean;
}

/**
 * MAX_CONNECTIONS, or where it is not set: half of the descriptors the process may open after a reserve and the
 * database pool (a client's request may open a connection of its own to a carrier while it runs), at most
 * 10,000. With the usual limit of 1,024 and the default pool that is 475; a limit of 20,074 or more gives 10,000.
 */
export function connectionLimit(
  configured: number | undefined,
  databasePoolMax: number,
  descriptors = descriptorLimit(),
): ConnectionLimit {
  const room =
    descriptors === undefined
      ? MAX_CONNECTIONS_CEILING
      : Math.max(1, Math.floor((descriptors - RESERVED_DESCRIPTORS - databasePoolMax) / 2));
  return {
    maxConnections: configured ?? Math.min(MAX_CONNECTIONS_CEILING, room),
    descriptorLimit: descriptors,
    beyondDescriptors: descriptors !== undefined && configured !== undefined && configured > room,
  };
}

/**
 * The most descriptors this process may open (Linux; Node raises its soft limit to the hard one as it starts),
 * or undefined where it cannot be read.
 */
export function descriptorLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.slice('Max open files'.length).trim().split(/\s+/)[0]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined; // "unlimited" is NaN
  } catch {
    return undefined;
  }
}
