// The operator commands of docs/operator-interface.md. Each calls the same services as the HTTP routes.
import { listOutbox } from '../delivery/outbox.js';
import type { Services } from '../services.js';
import { printRecord, printTable, UsageError } from './output.js';

export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  positionals?: number;
  run(services: Services, values: Values, positionals: string[]): Promise<unknown>;
  print(result: unknown): void;
}

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function wholeNumber(values: Values, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

const str = { type: 'string' } as const;

export const COMMANDS: Record<string, Command> = {
  'workspace create': {
    usage: 'workspace create --name NAME',
    options: { name: str },
    run: (s, v) => s.workspaces.createWorkspace({ name: required(v, 'name') }),
    print: (r) => printRecord(r as object),
  },
  'workspace list': {
    usage: 'workspace list',
    options: {},
    run: (s) => s.workspaces.listWorkspaces(),
    print: (r) => printTable(r as object[], ['id', 'name', 'created_at']),
  },
  'number add': {
    usage: 'number add --workspace WS_ID --number PHONE [--type mobile|landline|local_rate|toll_free]',
    options: { workspace: str, number: str, type: str, carrier: str },
    run: async (s, v) => {
      if (optional(v, 'carrier') !== undefined) {
        throw new UsageError(
          '--carrier: carrier accounts are not available in this version; numbers use the development provider',
        );
      }
      return s.workspaces.addNumber({
        workspaceId: required(v, 'workspace'),
        number: required(v, 'number'),
        type: optional(v, 'type'),
      });
    },
    print: (r) => printRecord(r as object),
  },
  'number list': {
    usage: 'number list --workspace WS_ID',
    options: { workspace: str },
    run: (s, v) => s.workspaces.listNumbers(required(v, 'workspace')),
    print: (r) => printTable(r as object[], ['id', 'number', 'type', 'country']),
  },
  'key create': {
    usage: 'key create --workspace WS_ID --name NAME [--scopes otp,…] [--expires-in SECONDS]',
    options: { workspace: str, name: str, scopes: str, 'expires-in': str },
    run: async (s, v) => {
      const scopes = optional(v, 'scopes');
      const created = await s.keys.createKey({
        workspaceId: required(v, 'workspace'),
        name: required(v, 'name'),
        scopes:
          scopes === undefined
            ? undefined
            : scopes
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean),
        expiresInSeconds: wholeNumber(v, 'expires-in'),
      });
      return {
        id: created.id,
        name: created.name,
        key: created.key,
        scopes: created.scopes,
        created_at: created.created_at,
        expires_at: created.expires_at,
        workspace_id: created.workspace_id,
        prefix: created.prefix,
      };
    },
    print: (r) => {
      printRecord(r as object);
      process.stderr.write('\nThe key is shown this once and cannot be retrieved. Store it now.\n');
    },
  },
  'key revoke': {
    usage: 'key revoke KEY_ID',
    options: {},
    positionals: 1,
    run: (s, _v, p) => s.keys.revokeKey(p[0] ?? ''),
    print: (r) => printRecord(r as object),
  },
  'key list': {
    usage: 'key list --workspace WS_ID',
    options: { workspace: str },
    run: (s, v) => s.keys.listKeys(required(v, 'workspace')),
    print: (r) =>
      printTable(r as object[], [
        'id',
        'name',
        'prefix',
        'scopes',
        'status',
        'created_at',
        'expires_at',
        'last_used_at',
      ]),
  },
  outbox: {
    usage: 'outbox [--to PHONE] [--limit N]',
    options: { to: str, limit: str },
    run: (s, v) => listOutbox(s.store.db, { to: optional(v, 'to'), limit: wholeNumber(v, 'limit') }),
    print: (r) => {
      const messages = r as { created_at: string; channel: string; to: string; from: string; body: string }[];
      if (messages.length === 0) process.stdout.write('(no messages)\n');
      for (const m of messages)
        process.stdout.write(`${m.created_at}  ${m.channel}  ${m.from} -> ${m.to}\n  ${m.body}\n`);
    },
  },
};
