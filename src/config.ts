// The environment, parsed once at boot by one schema (docs/operations.md, "Environment"). Nothing else reads process.env.
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';

/** Defaults of the settings a caller of createServices may leave out (the CLI, tests); the environment's too. */
export const DEFAULT_RETENTION_DAYS = 30;
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
export const DEFAULT_DELIVERY_WAIT_MS = 3000;
export const DEFAULT_CARRIER_TIMEOUT_MS = 10_000;
export const DEFAULT_DATABASE_POOL_MAX = 10;
export const DEFAULT_STATEMENT_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.String({
    pattern: '^(sqlite:|postgres://|postgresql://)',
    default: 'sqlite:./data/phone-verify.db',
  }),
  PHONE_VERIFY_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  // The secret being replaced: what it sealed still opens, the codes it hashed still check (docs/operations.md).
  PHONE_VERIFY_PREVIOUS_SECRET: Type.Optional(Type.String({ minLength: 32 })),
  PUBLIC_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  SWEEP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 5000 }),
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_POOL_MAX: Type.Integer({ minimum: 1, maximum: 1000, default: DEFAULT_DATABASE_POOL_MAX }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 100, default: DEFAULT_STATEMENT_TIMEOUT_MS }),
  RETENTION_DAYS: Type.Integer({ minimum: 1, default: DEFAULT_RETENTION_DAYS }),
  // At most 100 years: bounded so that the cutoff (now less this many days) stays a safe integer for the store.
  AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 1, maximum: 36_500, default: DEFAULT_AUDIT_RETENTION_DAYS }),
  DELIVERY_WAIT_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: DEFAULT_DELIVERY_WAIT_MS }),
  DELIVERY_POLL_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: 500 }),
  CARRIER_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: DEFAULT_CARRIER_TIMEOUT_MS }),
  // At least the second at which requests are checked; at most Node's own default of 5 minutes.
  REQUEST_TIMEOUT_MS: Type.Integer({ minimum: 1000, maximum: 300_000, default: DEFAULT_REQUEST_TIMEOUT_MS }),
  // Unset: derived from the process's descriptor limit (src/http/connections.ts).
  MAX_CONNECTIONS: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  NODE_ENV: Type.Optional(Type.String()),
  // Prometheus metrics: a listener of their own (0: any free port), and/or /metrics on PORT behind a token.
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, maxLength: 1024, pattern: '^[\\x21-\\x7e]+$' })),
  // Webhooks may go to loopback and private addresses (local development and tests; docs/webhooks.md).
  WEBHOOK_ALLOW_PRIVATE: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  // How long one webhook POST may take; at most Standard Webhooks' 15 seconds.
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 15_000, default: DEFAULT_WEBHOOK_TIMEOUT_MS }),
});

export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly secret: string | undefined;
  /** PHONE_VERIFY_PREVIOUS_SECRET: accepted for opening and checking only, while the secret is being changed. */
  readonly previousSecret: string | undefined;
  readonly publicUrl: string;
  /** PUBLIC_URL was set (else publicUrl is derived from HOST and PORT, which may be 0). */
  readonly publicUrlSet?: boolean;
  readonly logLevel: string;
  /** NODE_ENV=production: numbers without a carrier are warned about loudly (their codes reach no phone). */
  readonly production: boolean;
  readonly sweepIntervalMs: number;
  readonly database: DatabaseOptions;
  readonly retentionDays: number;
  /** How long a client has to send a whole request, headers and body, before its connection is cut. */
  readonly requestTimeoutMs: number;
  /** Connections one process holds at most; undefined: derived from its descriptor limit when it serves. */
  readonly maxConnections: number | undefined;
  /** Days audit entries are kept before the sweeper deletes them. */
  readonly auditRetentionDays: number;
  /** Where the Prometheus metrics are served (docs/metrics.md); port and token both undefined: nowhere. */
  readonly metrics: {
    /** METRICS_PORT: a listener of their own on `host`. */
    readonly port: number | undefined;
    readonly host: string;
    /** METRICS_TOKEN: GET /metrics on the main port, for `Authorization: Bearer <token>`. */
    readonly token: string | undefined;
  };
  readonly delivery: {
    /** How long a send waits for its first hand-over before answering. */
    readonly waitMs: number;
    /** How often each process looks for delivery jobs that are due (retries, jobs left by a dead process). */
    readonly pollMs: number;
    /** How long one request to a carrier may take. */
    readonly carrierTimeoutMs: number;
  };
  readonly webhooks: {
    /** WEBHOOK_ALLOW_PRIVATE=true: endpoints on loopback and private addresses are allowed. */
    readonly allowPrivate: boolean;
    /** How long one webhook POST may take. */
    readonly timeoutMs: number;
  };
}

export interface DatabaseOptions {
  readonly url: string;
  /** Where local state (the generated secret) is kept; default: the SQLite file's folder, else ./data. */
  readonly dataDir?: string;
  /** PostgreSQL pool size per process. */
  readonly poolMax?: number;
  /** PostgreSQL statement timeout: no query holds a connection longer. */
  readonly statementTimeoutMs?: number;
}

export class ConfigError extends Error {}

/** A whole number in decimal digits: the schema's conversion alone would read "2.5" as 2 and "0x10" as 16. */
const WHOLE_NUMBER = /^\s*[+-]?\d+\s*$/;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.fromEntries(
    Object.keys(EnvSchema.properties)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  for (const [name, raw] of Object.entries(known)) {
    const schema = (EnvSchema.properties as Record<string, { type?: unknown }>)[name];
    if (schema?.type === 'integer' && !WHOLE_NUMBER.test(String(raw))) {
      throw new ConfigError(`invalid ${name}: must be a whole number`);
    }
  }
  const value = Value.Default(EnvSchema, Value.Convert(EnvSchema, known));
  if (!Value.Check(EnvSchema, value)) {
    const first = [...Value.Errors(EnvSchema, value)][0];
    const name = first?.instancePath.replace(/^\//, '') || 'environment';
    throw new ConfigError(`invalid ${name}: ${first?.message ?? 'bad value'}`);
  }
  const e = value as Env;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    secret: e.PHONE_VERIFY_SECRET,
    previousSecret: e.PHONE_VERIFY_PREVIOUS_SECRET,
    publicUrl: (e.PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ''),
    publicUrlSet: e.PUBLIC_URL !== undefined,
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    sweepIntervalMs: e.SWEEP_INTERVAL_MS,
    database: Object.freeze({
      url: e.DATABASE_URL,
      dataDir: e.DATA_DIR,
      poolMax: e.DATABASE_POOL_MAX,
      statementTimeoutMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
    }),
    retentionDays: e.RETENTION_DAYS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    maxConnections: e.MAX_CONNECTIONS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    metrics: Object.freeze({ port: e.METRICS_PORT, host: e.METRICS_HOST ?? e.HOST, token: e.METRICS_TOKEN }),
    delivery: Object.freeze({
      waitMs: e.DELIVERY_WAIT_MS,
      pollMs: e.DELIVERY_POLL_MS,
      carrierTimeoutMs: e.CARRIER_TIMEOUT_MS,
    }),
    webhooks: Object.freeze({
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    }),
  });
}
