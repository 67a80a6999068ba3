import { OPERATOR } from '../audit/actor.js';
// The pumping guard from the CLI (docs/operations.md "Pumping guard"): show and set a workspace's range settings,
// keep its allow list, list its blocks and lift one. Every bad option is a usage error (exit 2) before any service
// runs; the rules themselves (bounds, prefix shape) live in src/fraud/rules.ts.
import { AppError } from '../errors.js';
import type { BlockView } from '../fraud/blocks.js';
import { FRAUD_RANGES, type FraudSettingName, validateCountry, validatePrefix } from '../fraud/rules.js';
import type { FraudSettingsView } from '../fraud/settings.js';
import type { Services } from '../services.js';
import { type Command, required, str, text, type Values, wholeNumber, workspaceIdOf } from './options.js';
import { printRecord, printTable, UsageError } from './output.js';

/** Option -> the setting it sets. */
const SETTING_OPTIONS = {
  'range-limit': 'range_limit',
  'range-window-seconds': 'range_window_seconds',
  'block-seconds': 'block_seconds',
  'conversion-sends': 'conversion_sends',
  'conversion-percent': 'conversion_percent',
  'country-conversion-sends': 'country_conversion_sends',
  'country-conversion-percent': 'country_conversion_percent',
} as const satisfies Record<string, FraudSettingName>;

function settingsGiven(values: Values): Partial<Record<FraudSettingName, number>> {
  const given: Partial<Record<FraudSettingName, number>> = {};
  for (const [option, name] of Object.entries(SETTING_OPTIONS)) {
    const value = wholeNumber(values, option);
    if (value === undefined) continue;
    const { min, max } = FRAUD_RANGES[name];
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new UsageError(`--${option} must be a whole number from ${min} to ${max}`);
    }
    given[name] = value;
  }
  return given;
}

/** A prefix option in the shape rules.ts takes, else a usage error naming the option. */
function prefixOf(values: Values, option: string): string {
  try {
    return validatePrefix(required(values, option), option);
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(`--${option}: ${err.extras.errors?.[0]?.message}`);
    throw err;
  }
}

/** --country in the shape rules.ts takes (a served country's two letters), else a usage error. */
function countryOf(values: Values): string {
  try {
    return validateCountry(required(values, 'country'));
  } catch (err) {
    if (err instanceof AppError) throw new UsageError(`--country: ${err.extras.errors?.[0]?.message}`);
    throw err;
  }
}

async function fraudSettings(s: Services, values: Values): Promise<FraudSettingsView> {
  const workspaceId = workspaceIdOf(values);
  const given = settingsGiven(values);
  return Object.keys(given).length === 0
    ? s.fraud.getSettings(workspaceId)
    : s.fraud.setSettings(workspaceId, given, OPERATOR);
}

const workspace = { workspace: str };

export const FRAUD_COMMANDS: Record<string, Command> = {
  'fraud settings': {
    summary: "show the pumping guard's settings, or set the ones given",
    example: 'phone-verify fraud settings --workspace ws_… --range-limit 20',
    usage:
      'fraud settings --workspace WS_ID [--range-limit N] [--range-window-seconds N] [--block-seconds N] [--conversion-sends N] [--conversion-percent N] [--country-conversion-sends N] [--country-conversion-percent N]',
    options: {
      ...workspace,
      'range-limit': text('distinct numbers of one range sent to within the window before it is blocked'),
      'range-window-seconds': text('the window of the range limit, in seconds'),
      'block-seconds': text('how long a range stays blocked, in seconds'),
      'conversion-sends': text("how many of a range's last finished codes the conversion signal judges"),
      'conversion-percent': text(
        'below this share of verified codes a range is blocked (0: the signal is off)',
      ),
      'country-conversion-sends': text(
        "how many of a country's last finished codes the country signal judges",
      ),
      'country-conversion-percent': text(
        'below this share of verified codes a country is blocked (0: the signal is off)',
      ),
    },
    run: fraudSettings,
    print: (r) => printRecord(r as object),
  },
  'fraud allow': {
    summary: 'never block a number or range',
    example: 'phone-verify fraud allow --workspace ws_… --prefix +6149157',
    usage: 'fraud allow --workspace WS_ID --prefix +E164_PREFIX',
    options: { ...workspace, prefix: str },
    run: async (s, v) => {
      const [workspaceId, prefix] = [workspaceIdOf(v), prefixOf(v, 'prefix')];
      return s.fraud.allow(workspaceId, prefix, OPERATOR);
    },
    print: (r) => printRecord(r as object),
  },
  'fraud disallow': {
    summary: 'take a prefix off the allow list',
    example: 'phone-verify fraud disallow --workspace ws_… --prefix +6149157',
    usage: 'fraud disallow --workspace WS_ID --prefix +E164_PREFIX',
    options: { ...workspace, prefix: str },
    run: async (s, v) => {
      const [workspaceId, prefix] = [workspaceIdOf(v), prefixOf(v, 'prefix')];
      return s.fraud.disallow(workspaceId, prefix, OPERATOR);
    },
    print: (r) => printRecord(r as object),
  },
  'fraud blocks': {
    summary: 'list the blocked ranges, active and past',
    example: 'phone-verify fraud blocks --workspace ws_…',
    usage: 'fraud blocks --workspace WS_ID',
    options: workspace,
    run: async (s, v) => {
      const workspaceId = workspaceIdOf(v);
      return s.fraud.listBlocks(workspaceId);
    },
    print: (r) =>
      printTable(r as BlockView[], [
        'range',
        'country',
        'reason',
        'why',
        'active',
        'created_at',
        'blocked_until',
        'lifted_at',
        'refused',
      ]),
  },
  'fraud lift': {
    summary: "lift a range's or a country's block now",
    example: 'phone-verify fraud lift --workspace ws_… --range +614915701',
    usage: 'fraud lift --workspace WS_ID (--range +E164_RANGE | --country CC)',
    options: {
      ...workspace,
      range: text('the blocked range, as the Fraud page shows it'),
      country: text('the blocked country (AU, US, CA, GB, NZ)'),
    },
    run: async (s, v) => {
      if (v.range !== undefined && v.country !== undefined) {
        throw new UsageError('give one of --range and --country, not both');
      }
      if (v.country !== undefined) {
        const [workspaceId, country] = [workspaceIdOf(v), countryOf(v)];
        return s.fraud.liftCountry(workspaceId, country, OPERATOR);
      }
      const [workspaceId, range] = [workspaceIdOf(v), prefixOf(v, 'range')];
      return s.fraud.lift(workspaceId, range, OPERATOR);
    },
    print: (r) => printRecord(r as object),
  },
};
