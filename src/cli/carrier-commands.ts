// The carrier commands: accounts (add, list, rotate, remove) and which account a number sends through.
import { readFileSync } from 'node:fs';
import type { CarrierAccountListing } from '../carrier-accounts/service.js';
import { callbackUrlOf } from '../delivery/callback-url.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { type Command, optional, required, str, type Values } from './options.js';
import { printRecord, printTable, UsageError } from './output.js';

/** `carrier add` option -> the credential field it fills; the service checks which apply to the type. */
const CREDENTIAL_OPTIONS = {
  'account-sid': 'accountSid',
  'auth-token': 'authToken',
  'api-key': 'apiKey',
  'api-secret': 'apiSecret',
  'application-id': 'applicationId',
  'signature-secret': 'signatureSecret',
  'connection-id': 'connectionId',
  'messaging-profile-id': 'messagingProfileId',
  'public-key': 'publicKey',
  host: 'host',
  port: 'port',
  'system-id': 'systemId',
  'system-type': 'systemType',
  password: 'password',
} as const;

function credentialsOf(values: Values): Record<string, string | undefined> {
  const credentials: Record<string, string | undefined> = {};
  for (const [option, name] of Object.entries(CREDENTIAL_OPTIONS))
    credentials[name] = optional(values, option);
  const keyFile = optional(values, 'private-key-file');
  if (keyFile !== undefined) {
    try {
      credentials.privateKey = readFileSync(keyFile, 'utf8');
    } catch (err) {
      throw new UsageError(
        `--private-key-file: cannot read ${keyFile} (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  }
  return credentials;
}

/** The number of a workspace given as PHONE (E.164, spaces and dashes allowed): its id. */
async function numberIdOf(s: Services, workspaceId: string, phone: string): Promise<string> {
  const wanted = phone.replace(/[\s().-]/g, '');
  const found = (await s.workspaces.listNumbers(workspaceId)).find((n) => n.number === wanted);
  if (!found) throw new AppError('not_found', `No number ${phone} in workspace ${workspaceId}.`);
  return found.id;
}

/** An account as `carrier list` shows it: the list view and its status callback URL (null for SMPP). */
function withCallbackUrl(s: Services, account: CarrierAccountListing) {
  return { ...account, callback_url: callbackUrlOf(s.publicUrl, account) };
}

const CARRIER_COLUMNS = ['id', 'type', 'numbers', 'base_url', 'callback_url', 'created_at'];

export const CARRIER_COMMANDS: Record<string, Command> = {
  'number set-carrier': {
    usage: 'number set-carrier --workspace WS_ID --number PHONE --carrier CARRIER_ID|none',
    options: { workspace: str, number: str, carrier: str },
    run: async (s, v) => {
      const workspaceId = required(v, 'workspace');
      const carrier = required(v, 'carrier');
      const numberId = await numberIdOf(s, workspaceId, required(v, 'number'));
      // `none`: back to the development provider.
      return s.carriers.setNumberCarrier(workspaceId, numberId, carrier === 'none' ? null : carrier);
    },
    print: (r) => printRecord(r as object),
  },
  'carrier add': {
    usage:
      'carrier add --workspace WS_ID --type twilio|telnyx|vonage|smpp [--base-url URL] and, per type:\n' +
      '      twilio  --account-sid SID --auth-token TOKEN\n' +
      '      telnyx  --api-key KEY [--connection-id ID] [--messaging-profile-id ID] [--public-key KEY]\n' +
      '      vonage  --api-key KEY --api-secret SECRET --application-id ID --private-key-file PATH\n' +
      '              --signature-secret SECRET\n' +
      '      smpp    --host HOST --port PORT --system-id ID --password PASSWORD [--system-type TYPE]',
    options: {
      workspace: str,
      type: str,
      'base-url': str,
      'private-key-file': str,
      ...Object.fromEntries(Object.keys(CREDENTIAL_OPTIONS).map((o) => [o, str])),
    },
    // The view is { id, type, created_at }: no credential is ever printed back.
    run: (s, v) =>
      s.carriers.addAccount({
        workspaceId: required(v, 'workspace'),
        type: required(v, 'type'),
        credentials: credentialsOf(v),
        baseUrl: optional(v, 'base-url'),
      }),
    print: (r) => printRecord(r as object),
  },
  'carrier list': {
    usage: 'carrier list --workspace WS_ID',
    options: { workspace: str },
    run: async (s, v) =>
      (await s.carriers.listAccounts(required(v, 'workspace'))).map((a) => withCallbackUrl(s, a)),
    print: (r) => printTable(r as object[], CARRIER_COLUMNS),
  },
  'carrier rotate': {
    usage:
      'carrier rotate CARRIER_ID [credentials as for carrier add] [--base-url URL]\n' +
      '      replaces every credential of the account (give them all again); --base-url "" goes back to the\n' +
      "      carrier's own API",
    options: {
      'base-url': str,
      'private-key-file': str,
      ...Object.fromEntries(Object.keys(CREDENTIAL_OPTIONS).map((o) => [o, str])),
    },
    positionals: 1,
    run: async (s, v, p) => {
      const id = p[0] ?? '';
      const workspaceId = await s.carriers.workspaceOfAccount(id);
      const rotated = await s.carriers.rotateCredentials(
        workspaceId,
        id,
        credentialsOf(v),
        optional(v, 'base-url'),
      );
      return withCallbackUrl(s, rotated);
    },
    print: (r) => printRecord(r as object),
  },
  'carrier remove': {
    // Refused while a number sends through the account.
    usage: 'carrier remove CARRIER_ID',
    options: {},
    positionals: 1,
    run: async (s, _v, p) => {
      const id = p[0] ?? '';
      return s.carriers.removeAccount(await s.carriers.workspaceOfAccount(id), id);
    },
    print: (r) => printRecord(r as object),
  },
};
