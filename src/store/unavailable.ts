// Which database failures mean "unavailable, try again shortly" (503) rather than a bug (500): the
// connection is refused, lost or timed out, the server is shutting down or overloaded, the database refuses
// connections or no longer exists, the disk is full, or a lock wait or statement ran out of time.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// PostgreSQL SQLSTATEs: class 08 connection exceptions, 53 insufficient resources, 57P0x shutdown and
// cannot-connect-now, 57014 statement timeout, 55P03 lock timeout, 40001/40P01 serialisation and deadlock,
// 3D000 the database does not exist (dropped under the service).
const PG_STATES = /^(08|53)|^(57P01|57P02|57P03|57P04|57014|55P03|40001|40P01|3D000)$/;
const PG_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection error|Client has encountered a connection error|Query read timeout/i;
const SQLITE_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // PostgreSQL ends the session with a FATAL error whenever it will not serve it (the database does not allow
  // connections, was dropped, the server is shutting down): never a bug of the request.
  if ((error as { severity?: unknown }).severity === 'FATAL') return true;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || PG_STATES.test(code)) return true;
    if (SQLITE_CODES.has(code) || code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_IOERR'))
      return true;
  }
  if (PG_MESSAGES.test(error.message)) return true;
  // AggregateError (connecting to several addresses) and wrapped causes.
  const nested = [(error as { cause?: unknown }).cause, ...((error as { errors?: unknown[] }).errors ?? [])];
  return nested.some((e) => e !== undefined && isDatabaseUnavailable(e));
}

/**
 * A write that referenced a row removed while the request ran (its workspace deleted, its number or carrier
 * account removed by another request): a foreign key refused it and nothing was kept. Retrying is the answer
 * (409), not a 500: the request was right when it started.
 */
export function isRemovedMeanwhile(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
