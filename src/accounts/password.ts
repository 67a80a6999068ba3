// Passwords: scrypt (memory-hard) with a random salt, stored self-describing (`scrypt$N$r$p$salt$key`) so the
// parameters can be raised: a hash made with older ones still verifies, and is replaced at the next successful
// sign-in (needsRehash). Compared in constant time.
import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** OWASP's current recommendation for scrypt. Each derivation needs 128·N·r bytes: 128 MiB here. */
export const PASSWORD_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
/** A stored hash asking for more than this is refused rather than derived (it would only exhaust memory). */
const MAX_COST = { N: 2 ** 20, r: 16, p: 4 };
/**
 * Derivations run on libuv's thread pool (four threads, shared with file and DNS work) and each holds 128 MiB:
 * two at a time per process bound both. The sign-in limit keeps the queue short.
 */
const MAX_CONCURRENT = 2;

let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line, or is freed.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, options: Required<Pick<ScryptOptions, 'N' | 'r' | 'p'>>) {
  return inTurn(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(
          password.normalize('NFKC'),
          salt,
          KEY_LENGTH,
          // Node refuses more than 32 MiB by default; allow what these parameters need, and a little over.
          { ...options, maxmem: 128 * options.N * options.r + 1024 * 1024 },
          (err, key) => (err ? reject(err) : resolve(key)),
        );
      }),
  );
}

interface StoredHash {
  params: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): StoredHash | undefined {
  const [scheme, n, r, p, salt, key, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key || rest.length > 0) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const sane = (v: number, max: number) => Number.isSafeInteger(v) && v >= 1 && v <= max;
  if (!sane(params.N, MAX_COST.N) || !sane(params.r, MAX_COST.r) || !sane(params.p, MAX_COST.p))
    return undefined;
  if (params.N < 2 || (params.N & (params.N - 1)) !== 0) return undefined; // scrypt needs a power of two
  return { params, salt: Buffer.from(salt, 'base64url'), key: Buffer.from(key, 'base64url') };
}

export type PasswordParams = { N: number; r: number; p: number };

export async function hashPassword(
  password: string,
  params: PasswordParams = PASSWORD_PARAMS,
): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const hash = parse(stored);
  if (!hash) return false;
  const key = await derive(password, hash.salt, hash.params);
  return key.length === hash.key.length && timingSafeEqual(key, hash.key);
}

/** The accounts' passwords under one set of parameters: hashes made with others are replaced at a sign-in. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** A hash made with other parameters than these: replace it once the password is known (a sign-in). */
  needsRehash(stored: string): boolean;
  /**
   * A hash of a random password: signing in as an unknown user costs the same time as a wrong password. Made on
   * first use, so commands that never sign anyone in (the CLI) do not pay for it.
   */
  decoy(): Promise<string>;
}

/**
 * The service's hasher: OWASP's parameters (PASSWORD_PARAMS) unless others are given. Only the test suite gives
 * others, cheaper ones, for the hundreds of accounts it makes and signs in; the tests of passwords themselves,
 * and every CLI and serving process, use these.
 */
export function passwordHasher(params: PasswordParams = PASSWORD_PARAMS): PasswordHasher {
  let decoy: Promise<string> | undefined;
  return {
    hash: (password) => hashPassword(password, params),
    verify: verifyPassword,
    needsRehash(stored) {
      const made = parse(stored)?.params;
      return made?.N !== params.N || made.r !== params.r || made.p !== params.p;
    },
    decoy() {
      decoy ??= hashPassword(randomBytes(16).toString('hex'), params);
      return decoy;
    },
  };
}
