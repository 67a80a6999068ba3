// The operator commands (docs/operations.md, "The command line"). Each calls the same services as the HTTP routes.

import type { AccountView } from '../accounts/service.js';
import { OPERATOR } from '../audit/actor.js';
import type { ResealReport } from '../secret-rotation.js';
import { twilioServiceSid } from '../twilio-api/sids.js';
import { MAX_TTL_SECONDS } from '../verification/schemas.js';
import { isMode, MODES, type Mode } from '../vocabulary/modes.js';
import type { WorkspaceView } from '../workspaces/service.js';
import { ACCOUNT_COMMANDS } from './account-commands.js';
import { AUDIT_COMMANDS } from './audit-commands.js';
import { CARRIER_COMMANDS } from './carrier-commands.js';
import { DB_COMMANDS } from './db-commands.js';
import { FRAUD_COMMANDS } from './fraud-commands.js';
import {
  type AnyCommand,
  flag,
  idArgument,
  optional,
  readStdin,
  required,
  str,
  text,
  type Values,
  wholeNumber,
} from './options.js';
import { printRecord, printTable, UsageError } from './output.js';
import { TEST_NUMBER_COMMANDS } from './test-number-commands.js';
import { WEBHOOK_COMMANDS } from './webhook-commands.js';
import { WORKSPACE_COMMANDS } from './workspace-commands.js';

/** The password of `account create`: from stdin (kept out of the process list) or --password, never both. */
async function passwordOf(values: Values): Promise<string> {
  const inline = optional(values, 'password');
  if (values['password-stdin'] === true) {
    if (inline !== undefined) throw new UsageError('give --password-stdin or --password, not both');
    const password = await readStdin();
    if (password === '') throw new UsageError('--password-stdin: standard input held no password');
    return password;
  }
  if (inline === undefined) throw new UsageError('--password-stdin (or --password) is required');
  return inline;
}

/** `--mode`: live or test, said in one line; anything else (odd Unicode, a pasted blob) is not echoed back. */
function modeOption(values: Values): Mode | undefined {
  const mode = optional(values, 'mode');
  if (mode === undefined) return undefined;
  if (!isMode(mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')}`);
  return mode;
}

/** The longest a code lives: how long codes hashed under a previous secret may still be checked. */
const CODE_LIFETIME = `${MAX_TTL_SECONDS / 60} minutes`;

function printAccount(result: unknown): void {
  const account = result as AccountView;
  printRecord({
    ...account,
    workspaces: account.workspaces.map((w) => `${w.id} (${w.name})`).join(', ') || '-',
  });
}

/** A workspace with the Service SID the Twilio SDKs name it by (docs/twilio-compatibility.md). */
const withTwilioSid = (ws: WorkspaceView) => ({ ...ws, twilio_service_sid: twilioServiceSid(ws.id) });

export const COMMANDS: Record<string, AnyCommand> = {
  'workspace create': {
    summary: 'make a workspace (its name is the brand in every message)',
    example: 'phone-verify workspace create --name Acme --json | jq -r .id',
    usage: 'workspace create --name NAME',
    options: { name: text('the brand spoken and written in every message (at most 60 characters, no URL)') },
    run: async (s, v) =>
      withTwilioSid(await s.workspaces.createWorkspace({ name: required(v, 'name') }, OPERATOR)),
    print: (r) => printRecord(r as object),
  },
  'workspace list': {
    summary: 'list every workspace',
    example: 'phone-verify workspace list',
    usage: 'workspace list',
    options: {},
    run: async (s) => (await s.workspaces.listWorkspaces()).map(withTwilioSid),
    print: (r) => printTable(r as object[], ['id', 'name', 'created_at', 'twilio_service_sid']),
  },
  ...WORKSPACE_COMMANDS,
  ...FRAUD_COMMANDS,
  'number add': {
    summary: 'add a number that codes are sent from',
    example: 'phone-verify number add --workspace ws_… --number +61491570156',
    usage:
      'number add --workspace WS_ID --number PHONE [--type mobile|landline|local_rate|toll_free] [--carrier CARRIER_ID]',
    options: { workspace: str, number: str, type: str, carrier: str },
    run: (s, v) =>
      s.workspaces.addNumber(
        {
          workspaceId: required(v, 'workspace'),
          number: required(v, 'number'),
          type: optional(v, 'type'),
          carrierId: optional(v, 'carrier'),
        },
        OPERATOR,
      ),
    print: (r) => printRecord(r as object),
  },
  'number list': {
    summary: "list a workspace's numbers",
    example: 'phone-verify number list --workspace ws_…',
    usage: 'number list --workspace WS_ID',
    options: { workspace: str },
    run: (s, v) => s.workspaces.listNumbers(required(v, 'workspace')),
    print: (r) => printTable(r as object[], ['id', 'number', 'type', 'country', 'carrier_id']),
  },
  'number remove': {
    summary: 'remove a number: no code is sent from it again (codes sent already stay checkable)',
    example: 'phone-verify number remove num_…',
    usage: 'number remove NUMBER_ID',
    options: {},
    positionals: 1,
    run: async (s, _v, p) => {
      const numberId = idArgument(p[0], 'NUMBER_ID');
      const workspaceId = await s.workspaces.workspaceOfNumber(numberId);
      return s.workspaces.removeNumber({ workspaceId, numberId }, OPERATOR);
    },
    print: (r) => printRecord(r as object),
  },
  ...CARRIER_COMMANDS,
  'key create': {
    summary: 'make an API key (shown this once)',
    example: 'phone-verify key create --workspace ws_… --name backend --json | jq -r .key',
    usage:
      'key create --workspace WS_ID --name NAME [--scopes otp,…] [--expires-in SECONDS] [--mode live|test]',
    options: {
      workspace: str,
      name: text('a name to tell the key by (shown in key list and the dashboard)'),
      scopes: text('what the key may do, comma-separated (default otp; "" for none)'),
      'expires-in': text('seconds until the key stops working (default: never)'),
      mode: text('live (default), or test: a pv_test_… key whose codes never reach a carrier'),
    },
    run: async (s, v) => {
      const scopes = optional(v, 'scopes');
      const created = await s.keys.createKey(
        {
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
          mode: modeOption(v),
        },
        OPERATOR,
      );
      return {
        id: created.id,
        name: created.name,
        key: created.key,
        scopes: created.scopes,
        created_at: created.created_at,
        expires_at: created.expires_at,
        workspace_id: created.workspace_id,
        prefix: created.prefix,
        mode: created.mode,
      };
    },
    print: (r) => {
      printRecord(r as object);
      process.stderr.write('\nThe key is shown this once and cannot be retrieved. Store it now.\n');
    },
  },
  'key revoke': {
    summary: 'revoke an API key at once',
    example: 'phone-verify key revoke key_…',
    usage: 'key revoke KEY_ID',
    options: {},
    positionals: 1,
    run: async (s, _v, p) => {
      const id = p[0] ?? '';
      return s.keys.revokeKey(await s.keys.workspaceOfKey(id), id, OPERATOR);
    },
    print: (r) => printRecord(r as object),
  },
  'key list': {
    summary: "list a workspace's API keys (never the keys themselves)",
    example: 'phone-verify key list --workspace ws_…',
    usage: 'key list --workspace WS_ID',
    options: { workspace: str },
    run: (s, v) => s.keys.listKeys(required(v, 'workspace')),
    print: (r) =>
      printTable(r as object[], [
        'id',
        'name',
        'prefix',
        'mode',
        'scopes',
        'status',
        'created_at',
        'expires_at',
        'last_used_at',
      ]),
  },
  'account create': {
    summary: 'make a dashboard account',
    example:
      'printf \'%s\' "$PASSWORD" | phone-verify account create --email ops@example.com --password-stdin --workspace ws_…',
    usage: 'account create --email EMAIL [--password-stdin | --password PASSWORD] [--workspace WS_ID]',
    options: {
      email: str,
      password: text('the password (visible in the process list: prefer --password-stdin)'),
      'password-stdin': flag('read the password from standard input'),
      workspace: text('a workspace the account is a member of (default: none)'),
    },
    run: async (s, v) => {
      const workspace = optional(v, 'workspace');
      return s.accounts.createAccount(
        {
          email: required(v, 'email'),
          password: await passwordOf(v),
          workspaceIds: workspace === undefined ? [] : [workspace],
        },
        OPERATOR,
      );
    },
    print: printAccount,
  },
  'account add': {
    summary: 'make an account a member of a workspace',
    example: 'phone-verify account add --email ops@example.com --workspace ws_…',
    usage: 'account add --email EMAIL --workspace WS_ID',
    options: { email: str, workspace: str },
    run: (s, v) => s.accounts.addToWorkspace(required(v, 'email'), required(v, 'workspace'), OPERATOR),
    print: printAccount,
  },
  ...ACCOUNT_COMMANDS,
  'secret reseal': {
    summary: 'seal under the current secret what only the previous one opens',
    example: 'PHONE_VERIFY_PREVIOUS_SECRET=… phone-verify secret reseal',
    usage:
      'secret reseal\n' +
      '      seals again under the current secret what only PHONE_VERIFY_PREVIOUS_SECRET opens (the secrets come\n' +
      '      from the environment, never the command line)',
    options: {},
    run: (s) => s.secretRotation.reseal(),
    print: (r) => {
      const report = r as ResealReport;
      printRecord({
        'carrier accounts': `${report.carrier_accounts.total} (${report.carrier_accounts.resealed} resealed)`,
        'delivery jobs': `${report.delivery_jobs.total} (${report.delivery_jobs.resealed} resealed, ${report.delivery_jobs.unreadable} unreadable)`,
        'webhook secrets': `${report.webhook_secrets.total} (${report.webhook_secrets.resealed} resealed, ${report.webhook_secrets.unreadable} unreadable)`,
      });
      process.stderr.write(
        report.previous_secret
          ? `\nEverything sealed is now under the current secret. Keep PHONE_VERIFY_PREVIOUS_SECRET set ${CODE_LIFETIME} after the last process took the new secret, so codes sent before still check; then remove it.\n`
          : '\nPHONE_VERIFY_PREVIOUS_SECRET is not set: nothing sealed can need resealing.\n',
      );
    },
  },
  ...AUDIT_COMMANDS,
  ...DB_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...TEST_NUMBER_COMMANDS,
  outbox: {
    summary: "the development provider's messages, newest first",
    example: 'phone-verify outbox --to +61412345678 --limit 1',
    usage: 'outbox [--to PHONE] [--limit N]',
    options: { to: text('only the messages to this number'), limit: str },
    run: (s, v) => s.outbox.list({ to: optional(v, 'to'), limit: wholeNumber(v, 'limit') }),
    print: (r) => {
      const messages = r as { created_at: string; channel: string; to: string; from: string; body: string }[];
      if (messages.length === 0) process.stdout.write('(no messages)\n');
      for (const m of messages)
        process.stdout.write(`${m.created_at}  ${m.channel}  ${m.from} -> ${m.to}\n  ${m.body}\n`);
    },
  },
};
