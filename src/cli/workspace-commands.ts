// Workspace settings from the CLI: `workspace limits` shows a workspace's limits and sets the ones given. The
// limits are the ones the service stores per workspace (and the dashboard's Workspace page edits): sends per
// number per window, the window, requests a minute, and the failed-guess ceiling (failed checks per number per
// window, and its window). Bounds come from LIMIT_RANGES, the one place they live.
import { OPERATOR } from '../audit/actor.js';
import type { Services } from '../services.js';
import type { WorkspaceDeletion } from '../workspaces/deletion.js';
import { LIMIT_RANGES, type LimitName } from '../workspaces/service.js';
import {
  type Command,
  flag,
  optional,
  str,
  text,
  type Values,
  wholeNumber,
  workspaceIdOf,
} from './options.js';
import { printRecord, UsageError } from './output.js';

/**
 * Each stored limit and the options that set it: the operator interface's names, and the shorter ones of issue 16
 * (`--send-limit`, `--send-window`, `--request-limit`). Either spelling sets the limit; both at once is a usage
 * error. `--send-window` also takes a unit: 90s, 10m, 1h, 1d (seconds without one).
 */
const LIMIT_OPTIONS: { name: LimitName; option: string; alias?: string }[] = [
  { name: 'send_limit', option: 'sends-per-number', alias: 'send-limit' },
  { name: 'send_window_seconds', option: 'send-window-seconds', alias: 'send-window' },
  { name: 'request_limit_per_minute', option: 'requests-per-minute', alias: 'request-limit' },
  { name: 'guess_limit', option: 'guess-limit' },
  { name: 'guess_window_seconds', option: 'guess-window-seconds' },
];

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** `--send-window`: whole seconds, or a whole number of s, m, h or d. */
function durationSeconds(values: Values, option: string): number | undefined {
  const value = optional(values, option);
  if (value === undefined) return undefined;
  const match = /^(\d{1,15})([smhd]?)$/.exec(value);
  if (!match)
    throw new UsageError(`--${option} must be whole seconds or a duration such as 90s, 10m, 1h or 1d`);
  return Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] as number);
}

export interface WorkspaceLimitsView {
  workspace_id: string;
  send_limit: number;
  send_window_seconds: number;
  request_limit_per_minute: number;
  guess_limit: number;
  guess_window_seconds: number;
}

/** The limits given on the command line, each a whole number inside its range; a bad one is a usage error. */
function limitsGiven(values: Values): Partial<Record<LimitName, number>> {
  const given: Partial<Record<LimitName, number>> = {};
  for (const { name, option, alias } of LIMIT_OPTIONS) {
    const long = wholeNumber(values, option);
    const short =
      alias === undefined
        ? undefined
        : alias === 'send-window'
          ? durationSeconds(values, alias)
          : wholeNumber(values, alias);
    if (long !== undefined && short !== undefined) {
      throw new UsageError(`--${option} and --${alias} set the same limit: give one of them`);
    }
    const value = long ?? short;
    if (value === undefined) continue;
    const { min, max } = LIMIT_RANGES[name];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const shown = long === undefined ? (alias as string) : option;
      throw new UsageError(
        `--${shown} must be a whole number from ${min} to ${max}${shown === 'send-window' ? ' seconds' : ''}`,
      );
    }
    given[name] = value;
  }
  return given;
}

async function workspaceLimits(s: Services, values: Values): Promise<WorkspaceLimitsView> {
  const workspaceId = workspaceIdOf(values);
  const given = limitsGiven(values);
  // The limits not given stay as they are.
  const settings =
    Object.keys(given).length === 0
      ? await s.workspaces.getSettings(workspaceId)
      : await s.workspaces.setLimits({ workspaceId, limits: given }, OPERATOR);
  return { workspace_id: settings.id, ...settings.limits };
}

/**
 * `workspace delete`: without --yes, says what would go and deletes nothing (a usage error, exit 2); with it,
 * deletes the workspace and everything it holds in one transaction, keeping its audit trail.
 */
async function deleteWorkspace(s: Services, values: Values): Promise<WorkspaceDeletion> {
  const workspaceId = workspaceIdOf(values);
  if (values.yes !== true) {
    const preview = await s.workspaces.previewDeletion(workspaceId);
    const { keys, numbers, carrier_accounts, members, verifications } = preview.counts;
    throw new UsageError(
      `workspace ${preview.id} (${preview.name}) holds ${keys} API key(s), ${numbers} number(s), ${carrier_accounts} carrier account(s), ${members} member(s) and ${verifications} verification(s): deleting it deletes them all and revokes its keys at once; run again with --yes to delete it`,
    );
  }
  return s.workspaces.deleteWorkspace(workspaceId, OPERATOR);
}

export const WORKSPACE_COMMANDS: Record<string, Command> = {
  'workspace delete': {
    summary: 'delete a workspace and everything it holds (its keys stop working at once); needs --yes',
    example: 'phone-verify workspace delete --workspace ws_… --yes',
    usage:
      'workspace delete --workspace WS_ID [--yes]\n' +
      '      without --yes, says what would be deleted and deletes nothing; the audit trail is kept',
    options: { workspace: str, yes: flag('really delete it (without: say what would go, exit 2)') },
    run: deleteWorkspace,
    print: (r) => {
      const deleted = r as WorkspaceDeletion;
      printRecord({ id: deleted.id, name: deleted.name, deleted: deleted.deleted, ...deleted.counts });
      process.stderr.write(
        `\nDeleted. Its audit trail is kept: phone-verify audit list --workspace ${deleted.id}\n`,
      );
    },
  },
  'workspace limits': {
    summary: "show a workspace's limits, or set the ones given",
    example: 'phone-verify workspace limits --workspace ws_… --send-limit 3 --send-window 10m',
    usage:
      'workspace limits --workspace WS_ID [--send-limit N] [--send-window S] [--request-limit N] ' +
      '[--guess-limit N] [--guess-window-seconds N]\n' +
      '      --sends-per-number, --send-window-seconds and --requests-per-minute are the same as the first three',
    options: {
      workspace: str,
      'send-limit': text('codes sent to one number per send window (1 to 100)'),
      'send-window': text('the send window: seconds, or 90s, 10m, 1h, 1d (60 seconds to 1 day)'),
      'request-limit': text('API requests a minute (10 to 1000000)'),
      'sends-per-number': text('the same as --send-limit'),
      'send-window-seconds': text('the same as --send-window, in seconds'),
      'requests-per-minute': text('the same as --request-limit'),
      'guess-limit': text('failed checks per number per guess window (1 to 1000)'),
      'guess-window-seconds': text('the guess window in seconds (60 to 86400)'),
    },
    run: workspaceLimits,
    print: (r) => printRecord(r as object),
  },
};
