// The carrier commands: accounts (add, list, rotate, remove) and which account a number sends through.
import { readFileSync } from 'node:fs';
import { OPERATOR } from '../audit/actor.js';
import type { CarrierAccountListing } from '../carrier-accounts/service.js';
import { callbackUrlOf } from '../delivery/callback-url.js';
import type { AnyCarrier } from '../delivery/carriers/descriptor.js';
import { BUILT_IN_CARRIERS } from '../delivery/carriers/index.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import {
  type Command,
  idArgument,
  optional,
  required,
  str,
  text,
  type Values,
  workspaceIdOf,
} from './options.js';
import { CommandFailed, printRecord, printTable, UsageError } from './output.js';

/**
 * Every credential option of every carrier -> the credential field it fills, and whether it names a file to read.
 * The service checks which apply to the type, so an option of another carrier is refused by name.
 */
function credentialOptions(carriers: readonly AnyCarrier[]): Map<string, { name: string; file: boolean }> {
  const options = new Map<string, { name: string; file: boolean }>();
  for (const carrier of carriers) {
    for (const f of carrier.fields) {
      if (!options.has(f.cli.option)) options.set(f.cli.option, { name: f.name, file: f.cli.file === true });
    }
  }
  return options;
}

function credentialsOf(carriers: readonly AnyCarrier[], values: Values): Record<string, string | undefined> {
  const credentials: Record<string, string | undefined> = {};
  const files: [string, string][] = [];
  for (const [option, { name, file }] of credentialOptions(carriers)) {
    const value = optional(values, option);
    if (file) {
      if (value !== undefined) files.push([option, name]);
    } else credentials[name] = value;
  }
  for (const [option, name] of files) {
    const path = optional(values, option) as string;
    try {
      credentials[name] = readFileSync(path, 'utf8');
    } catch (err) {
      throw new UsageError(`--${option}: cannot read ${path} (${(err as NodeJS.ErrnoException).code})`);
    }
  }
  return credentials;
}

/** Usage lines are wrapped at this width. */
const USAGE_WIDTH = 90;

/** A type's own options, from its fields: required ones plain, optional ones in brackets, wrapped. */
function typeUsage(carrier: AnyCarrier): string[] {
  const lines: string[] = [];
  for (const f of carrier.fields) {
    const option = `--${f.cli.option} ${f.cli.value}`;
    const part = f.required ? option : `[${option}]`;
    const last = lines.at(-1);
    if (last !== undefined && last.length + 1 + part.length <= USAGE_WIDTH)
      lines[lines.length - 1] = `${last} ${part}`;
    else lines.push(part);
  }
  return lines;
}

/** `carrier add`'s usage: the common options, then each type's own. */
function addUsage(carriers: readonly AnyCarrier[]): string {
  const perType = carriers.map((c) => {
    const [first, ...rest] = typeUsage(c);
    return [`      ${c.type.padEnd(8)}${first}`, ...rest.map((line) => `${' '.repeat(14)}${line}`)].join(
      '\n',
    );
  });
  return [
    `carrier add --workspace WS_ID --type ${carriers.map((c) => c.type).join('|')} [--base-url URL] and, per type:`,
    ...perType,
  ].join('\n');
}

/** The number of a workspace given as PHONE (E.164, spaces and dashes allowed): its id. */
async function numberIdOf(s: Services, workspaceId: string, phone: string): Promise<string> {
  const wanted = phone.replace(/[\s().-]/g, '');
  const found = (await s.workspaces.listNumbers(workspaceId)).find((n) => n.number === wanted);
  if (!found) throw new AppError('not_found', `No number ${phone} in workspace ${workspaceId}.`);
  return found.id;
}

/** An account as `carrier list` shows it: the list view and its status callback URL (null: its carrier has none). */
function withCallbackUrl(s: Services, account: CarrierAccountListing) {
  return { ...account, callback_url: callbackUrlOf(s.carrierTypes, s.publicUrl, account) };
}

const CARRIER_COLUMNS = ['id', 'type', 'numbers', 'base_url', 'callback_url', 'created_at'];

/** The carrier commands for these carriers: `carrier add` and `carrier rotate` take their credential options. */
export function carrierCommands(carriers: readonly AnyCarrier[]): Record<string, Command> {
  // Each credential option described by its field's label and carrier (`Auth token (twilio)`).
  const described = new Map<string, string[]>();
  for (const carrier of carriers) {
    for (const f of carrier.fields) {
      const shown = `${f.label} (${carrier.type}${f.cli.file ? ', a file to read' : ''})`;
      described.set(f.cli.option, [...(described.get(f.cli.option) ?? []), shown]);
    }
  }
  const credentialFlags = Object.fromEntries(
    [...credentialOptions(carriers).keys()].map((o) => [o, text((described.get(o) ?? []).join('; '))]),
  );
  return {
    'number set-carrier': {
      summary: 'choose the carrier account a number sends through',
      example: 'phone-verify number set-carrier --workspace ws_… --number +61491570156 --carrier car_…',
      usage: 'number set-carrier --workspace WS_ID --number PHONE --carrier CARRIER_ID|none',
      options: { workspace: str, number: str, carrier: str },
      run: async (s, v) => {
        const workspaceId = required(v, 'workspace');
        const carrier = required(v, 'carrier');
        const numberId = await numberIdOf(s, workspaceId, required(v, 'number'));
        // `none`: back to the development provider.
        return s.carriers.setNumberCarrier(
          workspaceId,
          numberId,
          carrier === 'none' ? null : carrier,
          OPERATOR,
        );
      },
      print: (r) => printRecord(r as object),
    },
    'carrier add': {
      summary: 'add a carrier account (its credentials are sealed, never shown)',
      example: 'phone-verify carrier add --workspace ws_… --type twilio --account-sid AC… --auth-token …',
      usage: addUsage(carriers),
      options: { workspace: str, type: str, 'base-url': str, ...credentialFlags },
      // The view is { id, type, created_at }: no credential is ever printed back.
      run: (s, v) =>
        s.carriers.addAccount(
          {
            workspaceId: required(v, 'workspace'),
            type: required(v, 'type'),
            credentials: credentialsOf(carriers, v),
            baseUrl: optional(v, 'base-url'),
          },
          OPERATOR,
        ),
      print: (r) => printRecord(r as object),
    },
    'carrier list': {
      summary: "list a workspace's carrier accounts and their callback URLs",
      example: 'phone-verify carrier list --workspace ws_…',
      usage: 'carrier list --workspace WS_ID',
      options: { workspace: str },
      run: async (s, v) =>
        (await s.carriers.listAccounts(required(v, 'workspace'))).map((a) => withCallbackUrl(s, a)),
      print: (r) => printTable(r as object[], CARRIER_COLUMNS),
    },
    'carrier rotate': {
      summary: "replace a carrier account's credentials",
      example: 'phone-verify carrier rotate car_… --account-sid AC… --auth-token …',
      usage:
        'carrier rotate CARRIER_ID [credentials as for carrier add] [--base-url URL]\n' +
        '      replaces every credential of the account (give them all again); --base-url "" goes back to the\n' +
        "      carrier's own API",
      options: { 'base-url': str, ...credentialFlags },
      positionals: 1,
      run: async (s, v, p) => {
        const id = p[0] ?? '';
        const workspaceId = await s.carriers.workspaceOfAccount(id);
        const rotated = await s.carriers.rotateCredentials(
          workspaceId,
          id,
          { credentials: credentialsOf(carriers, v), baseUrl: optional(v, 'base-url') },
          OPERATOR,
        );
        return withCallbackUrl(s, rotated);
      },
      print: (r) => printRecord(r as object),
    },
    'carrier test': {
      summary: "test a carrier account's credentials with one harmless call to the carrier",
      example: 'phone-verify carrier test --workspace ws_… --account car_…',
      usage:
        'carrier test --workspace WS_ID --account ACCOUNT_ID\n' +
        '      Twilio: fetches the account; Telnyx and Vonage: read the balance; SMPP: binds, then unbinds. Exits 0\n' +
        '      when the carrier took the credentials, 1 when it refused them or could not be reached',
      options: { workspace: str, account: text("the carrier account's id (car_…, from carrier list)") },
      run: async (s, v) => {
        const tested = await s.carriers.testCredentials(
          workspaceIdOf(v),
          idArgument(optional(v, 'account'), '--account'),
          OPERATOR,
        );
        // After the command's output would be: refused or unreachable is a failure, its one line the detail.
        if (tested.outcome === 'refused') throw new CommandFailed('credentials_refused', tested.detail);
        if (tested.outcome === 'unreachable') throw new CommandFailed('carrier_unreachable', tested.detail);
        return tested;
      },
      print: (r) => printRecord(r as object),
    },
    'carrier remove': {
      summary: 'remove a carrier account no number sends through',
      example: 'phone-verify carrier remove car_…',
      // Refused while a number sends through the account.
      usage: 'carrier remove CARRIER_ID',
      options: {},
      positionals: 1,
      run: async (s, _v, p) => {
        const id = p[0] ?? '';
        return s.carriers.removeAccount(await s.carriers.workspaceOfAccount(id), id, OPERATOR);
      },
      print: (r) => printRecord(r as object),
    },
  };
}

/** The commands for the built-in carriers. */
export const CARRIER_COMMANDS: Record<string, Command> = carrierCommands(BUILT_IN_CARRIERS);
