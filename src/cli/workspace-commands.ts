// Workspace settings from the CLI: `workspace limits` shows a workspace's limits and sets the ones given. The
// limits are the ones the service stores per workspace (and the dashboard's Workspace page edits): sends per
// number per window, the window, requests a minute, and the failed-guess ceiling (failed checks per number per
// window, and its window). Bounds come from LIMIT_RANGES, the one place they live.
import { OPERATOR } from '../audit/actor.js';
import type { Services } from '../services.js';
import { LIMIT_RANGES, type LimitName } from '../workspaces/service.js';
import { type Command, str, type Values, wholeNumber, workspaceIdOf } from './options.js';
import { printRecord, UsageError } from './output.js';

/** Option -> the stored limit it sets. */
const LIMIT_OPTIONS = {
  'sends-per-number': 'send_limit',
  'send-window-seconds': 'send_window_seconds',
  'requests-per-minute': 'request_limit_per_minute',
  'guess-limit': 'guess_limit',
  'guess-window-seconds': 'guess_window_seconds',
} as const satisfies Record<string, LimitName>;

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
  for (const [option, name] of Object.entries(LIMIT_OPTIONS)) {
    const value = wholeNumber(values, option);
    if (value === undefined) continue;
    const { min, max } = LIMIT_RANGES[name];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(`--${option} must be a whole number from ${min} to ${max}`);
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

export const WORKSPACE_COMMANDS: Record<string, Command> = {
  'workspace limits': {
    usage:
      'workspace limits --workspace WS_ID [--sends-per-number N] [--send-window-seconds N] [--requests-per-minute N] ' +
      '[--guess-limit N] [--guess-window-seconds N]',
    options: {
      workspace: str,
      'sends-per-number': str,
      'send-window-seconds': str,
      'requests-per-minute': str,
      'guess-limit': str,
      'guess-window-seconds': str,
    },
    run: workspaceLimits,
    print: (r) => printRecord(r as object),
  },
};
