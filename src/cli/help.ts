// What the CLI says when asked: the list of commands (`phone-verify --help`), a group's commands (`phone-verify
// key`), one command's usage, options and example (`phone-verify key create --help`), and the version. Built from
// the command table: a command without a summary or option descriptions is listed with its usage line.

import { VERSION } from '../version.js';
import type { AnyCommand as Command } from './options.js';
import { synopsis } from './parse.js';

export { VERSION };

/** `serve` is not in the table (it runs the service, not a command on the store), but it is listed first. */
const SERVE = {
  name: 'serve',
  summary: 'run the HTTP service, configured by the environment (docs/operations.md)',
  usage: 'serve',
};

/** What each group is about, for its heading. A group without an entry is listed without one. */
const GROUPS: Record<string, string> = {
  workspace: 'workspaces: the tenants, each with its own keys, numbers, limits and audit trail',
  number: "a workspace's numbers: the senders its codes come from",
  key: "a workspace's API keys (live, or test: pv_test_…)",
  'test-number': "a workspace's test numbers: fixed codes for its test keys",
  carrier: "a workspace's carrier accounts (Twilio, Vonage, Telnyx, SMPP)",
  account: 'dashboard operator accounts',
  fraud: "the pumping guard's settings, allow list and blocks",
  audit: "a workspace's audit trail",
  webhook: "a workspace's webhook endpoints: signed events to its backend (docs/webhooks.md)",
  secret: 'the server secret',
};

/** Options many commands share, described once; a command's own description wins. */
const COMMON_OPTIONS: Record<string, string> = {
  workspace: "the workspace's id (ws_…, from workspace list)",
  number: 'a phone number in E.164 form, e.g. +61491570156',
  carrier: "a carrier account's id (car_…, from carrier list)",
  email: "the account's e-mail address",
  limit: 'how many to show at most',
  type: 'the kind of number or carrier, one of those the usage lists',
  prefix: 'an E.164 prefix: a number or the start of a range, e.g. +6149157',
  range: 'a blocked range, as fraud blocks shows it',
  action: 'only entries of this action (e.g. key.revoked)',
  actor: 'only entries by cli, system or an account id (usr_…)',
  'base-url': "the carrier API's address, instead of its own (regional edges, proxies, test doubles)",
};

const JSON_OPTION = { option: '--json', value: '', description: 'print exactly one JSON value on stdout' };
const HELP_OPTION = { option: '--help', value: '', description: 'show this help' };

export interface Listed {
  command: string;
  summary: string;
  usage: string;
}

const firstLine = (s: string) => s.split('\n')[0] ?? '';

function listed(table: Record<string, Command>, group?: string): Listed[] {
  const rows = Object.entries(table)
    .filter(([name]) => group === undefined || name.split(' ')[0] === group)
    .map(([name, c]) => ({ command: name, summary: c.summary ?? '', usage: firstLine(c.usage) }));
  return group === undefined
    ? [{ command: SERVE.name, summary: SERVE.summary, usage: SERVE.usage }, ...rows]
    : rows;
}

function lines(rows: Listed[]): string {
  const width = Math.max(...rows.map((r) => r.command.length));
  // Without a summary, what follows the name in its usage line says what it takes.
  return rows
    .map((r) => `  ${r.command.padEnd(width)}  ${r.summary || r.usage.slice(r.command.length).trim() || '-'}`)
    .join('\n');
}

/** The groups of the table: the first words of its two-word commands. */
export function groupsOf(table: Record<string, Command>): Set<string> {
  return new Set(
    Object.keys(table)
      .filter((n) => n.includes(' '))
      .map((n) => n.split(' ')[0] as string),
  );
}

export function overview(table: Record<string, Command>): { text: string; json: unknown } {
  const rows = listed(table);
  const text = `phone-verify ${VERSION}: phone verification by voice call or SMS

Usage: phone-verify <command> [options] [--json]
       phone-verify <command> --help    a command's options and an example
       phone-verify <group>             a group's commands (workspace, key, number, account, …)
       phone-verify --version

Commands:
${lines(rows)}

Every command takes --json: stdout then holds exactly one JSON value, an error too ({ "code", "detail", … }),
while a failure's one-line reason goes to stderr. Exit status: 0 done, 1 failed, 2 called wrongly.`;
  return { text, json: { version: VERSION, commands: rows } };
}

export function groupHelp(table: Record<string, Command>, group: string): { text: string; json: unknown } {
  const rows = listed(table, group);
  const heading = GROUPS[group] ? `phone-verify ${group}: ${GROUPS[group]}` : `phone-verify ${group}`;
  const text = `${heading}

Commands:
${lines(rows)}

Run phone-verify ${group} <command> --help for a command's options and an example.`;
  return { text, json: { group, commands: rows } };
}

/** The placeholder an option takes in the usage (`--workspace WS_ID` -> WS_ID), if the usage shows one. */
function placeholderOf(usage: string, option: string): string {
  const escaped = option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`--${escaped}[ =]([^\\s\\]\\[]+)`).exec(usage)?.[1] ?? '';
}

export function commandHelp(name: string, command: Command): { text: string; json: unknown } {
  const options = [
    ...Object.entries(command.options).map(([option, spec]) => ({
      option: `--${option}`,
      value: spec.type === 'boolean' ? '' : placeholderOf(command.usage, option) || 'VALUE',
      description: spec.description ?? COMMON_OPTIONS[option] ?? '',
    })),
    JSON_OPTION,
    HELP_OPTION,
  ];
  const width = Math.max(...options.map((o) => `${o.option} ${o.value}`.trim().length));
  const [first = '', ...more] = command.usage.split('\n');
  const text = [
    `Usage: phone-verify ${first}`,
    ...more.map((l) => l.replace(/^ {4}/, '')),
    ...(command.summary ? ['', command.summary] : []),
    '',
    'Options:',
    ...options.map((o) => `  ${`${o.option} ${o.value}`.trim().padEnd(width)}  ${o.description}`.trimEnd()),
    ...(command.example ? ['', 'Example:', `  ${command.example}`] : []),
  ].join('\n');
  return {
    text,
    json: {
      command: name,
      summary: command.summary ?? '',
      usage: synopsis(command).slice('phone-verify '.length),
      options,
      example: command.example ?? null,
    },
  };
}

export const serveHelp = (): { text: string; json: unknown } => ({
  text: `Usage: phone-verify serve [--json]

${SERVE.summary}: PORT, HOST, DATABASE_URL, PHONE_VERIFY_SECRET, PUBLIC_URL (PHONE_VERIFY_PREVIOUS_SECRET while the
secret is being changed). With --json, one line { "url", "database", "public_url" } on stdout once listening, and
the logs on stderr. SIGTERM or SIGINT finishes the requests in flight and exits 0.

Example:
  PORT=3000 DATABASE_URL=sqlite:./data/phone-verify.db phone-verify serve`,
  json: { command: 'serve', summary: SERVE.summary, usage: 'serve', options: [JSON_OPTION, HELP_OPTION] },
});
