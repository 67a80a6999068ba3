// The CLI entry: `phone-verify <command> [options]`. One-line reasons on stderr and a non-zero exit on failure:
// 1 when the command itself failed, 2 when it was called wrongly. With --json, stdout holds exactly one JSON value
// whatever happens: the result, the help asked for, or the error ({ code, title, detail, exit_code }).
import { ConfigError, loadConfig } from '../config.js';
import type { AnyCarrier } from '../delivery/carriers/descriptor.js';
import {
  AppError,
  CLI_ERROR_CATALOGUE,
  type CliErrorCode,
  ERROR_CATALOGUE,
  type ErrorCode,
} from '../errors.js';
import { openServices } from '../services.js';
import { carrierCommands } from './carrier-commands.js';
import { COMMANDS } from './commands.js';
import { commandHelp, groupHelp, groupsOf, overview, serveHelp, VERSION } from './help.js';
import type { AnyCommand as Command } from './options.js';
import { CommandFailed, printJson, UsageError } from './output.js';
import { parseCommandArgs } from './parse.js';
import { didYouMean } from './suggest.js';

/** A field error names the option to fix (`--type: …`); other errors read as they are. */
function cliMessage(err: AppError): string {
  const fieldErrors = err.extras.errors ?? [];
  if (fieldErrors.length === 0) return err.message;
  return fieldErrors.map((e) => `--${e.field.replaceAll('_', '-')}: ${e.message}`).join('; ');
}

interface Failure {
  code: ErrorCode | CliErrorCode;
  detail: string;
  exit: 1 | 2;
  errors?: { field: string; message: string }[];
}

function failureOf(err: unknown): Failure {
  if (err instanceof UsageError) return { code: 'invalid_usage', detail: err.message, exit: 2 };
  if (err instanceof ConfigError) return { code: 'invalid_configuration', detail: err.message, exit: 2 };
  if (err instanceof CommandFailed) return { code: err.code, detail: err.message, exit: 1 };
  if (err instanceof AppError) {
    const errors = err.extras.errors?.map((e) => ({
      field: `--${e.field.replaceAll('_', '-')}`,
      message: e.message,
    }));
    return { code: err.code, detail: cliMessage(err), exit: 1, ...(errors ? { errors } : {}) };
  }
  return { code: 'internal_error', detail: err instanceof Error ? err.message : String(err), exit: 1 };
}

/** The one line on stderr and, with --json, the one JSON value on stdout; the exit status. */
function fail(failure: Failure, json: boolean): number {
  const detail = failure.detail.replace(/\s*\n\s*/g, ' ');
  if (json) {
    const title =
      failure.code in CLI_ERROR_CATALOGUE
        ? CLI_ERROR_CATALOGUE[failure.code as CliErrorCode].title
        : ERROR_CATALOGUE[failure.code as ErrorCode].title;
    printJson({
      code: failure.code,
      title,
      detail,
      exit_code: failure.exit,
      ...(failure.errors ? { errors: failure.errors } : {}),
    });
  }
  process.stderr.write(`error: ${detail}\n`);
  return failure.exit;
}

function show(help: { text: string; json: unknown }, json: boolean): number {
  if (json) printJson(help.json);
  else process.stdout.write(`${help.text}\n`);
  return 0;
}

const wantsHelp = (args: string[]) => args.includes('--help') || args.includes('-h');

/** The command the words name: a one-word command, else a two-word one; else a usage error with the nearest name. */
function resolve(table: Record<string, Command>, words: string[]): { name: string; command: Command } {
  const [first = '', second] = words;
  if (table[first]) return { name: first, command: table[first] };
  const name = `${first} ${second ?? ''}`.trim();
  const command = table[name];
  if (command) return { name, command };
  const groups = groupsOf(table);
  // `workspace lst` is compared with the workspace commands; `worksapce list` with every command and group.
  const inGroup = groups.has(first) && second !== undefined && !second.startsWith('-');
  const typed = inGroup ? name : first;
  const names = inGroup
    ? Object.keys(table).filter((n) => n.startsWith(`${first} `))
    : [...Object.keys(table).filter((n) => !n.includes(' ')), 'serve', 'help', ...groups];
  throw new UsageError(
    `unknown command "${typed}"${didYouMean(typed, names, '; phone-verify --help lists the commands', '"')}`,
  );
}

/** `carrierTypes`: the carriers to know (default: the built-in ones); a test may run commands with its own. */
export async function main(argv: string[], carrierTypes?: readonly AnyCarrier[]): Promise<number> {
  const commands = carrierTypes ? { ...COMMANDS, ...carrierCommands(carrierTypes) } : COMMANDS;
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  try {
    const [first, second] = args;
    if (first === undefined) {
      // A failure like any other (exit 2), the list of commands shown unless stdout is JSON's.
      if (!json) process.stdout.write(`${overview(commands).text}\n`);
      throw new UsageError('no command given; run phone-verify --help');
    }
    if (first === '--version' || first === '-v')
      return show({ text: VERSION, json: { version: VERSION } }, json);
    if (first === '--help' || first === '-h') return show(overview(commands), json);
    if (first === 'help') {
      const rest = args.slice(1).filter((a) => !a.startsWith('-'));
      if (rest.length === 0) return show(overview(commands), json);
      return show(helpFor(commands, rest), json);
    }
    const groups = groupsOf(commands);
    if (first === 'serve') {
      if (wantsHelp(args)) return show(serveHelp(), json);
      if (args.length > 1)
        throw new UsageError(`serve takes no arguments (configure it with the environment)`);
      const config = loadConfig();
      // Loaded only here: the other commands start faster without the HTTP stack.
      const { serve } = await import('../main.js');
      await serve(config, { json });
      return 0;
    }
    // `phone-verify key` (or `key --help`): the group's commands.
    if (
      groups.has(first) &&
      !commands[first] &&
      (second === undefined || (second.startsWith('-') && wantsHelp(args)))
    ) {
      return show(groupHelp(commands, first), json);
    }
    if (groups.has(first) && !commands[first] && second?.startsWith('-')) {
      const names = Object.keys(commands).filter((n) => n.startsWith(`${first} `));
      throw new UsageError(`"${first}" needs a command first: ${names.join(', ')}`);
    }
    const { name, command } = resolve(commands, args);
    if (wantsHelp(args)) return show(commandHelp(name, command), json);
    const { values, positionals } = parseCommandArgs(name, command, args.slice(name.split(' ').length));
    const config = loadConfig();
    // `db copy`, `db backup`: the databases named on the command line, never the services on DATABASE_URL.
    if ('runOnDatabases' in command) {
      const result = await command.runOnDatabases(config, values, positionals);
      if (json) printJson(result);
      else command.print(result);
      return 0;
    }
    const opened = await openServices(config, carrierTypes);
    for (const warning of opened.services.startupWarnings) process.stderr.write(`warning: ${warning}\n`);
    let result: unknown;
    try {
      result = await command.run(opened.services, values, positionals);
    } finally {
      // Closing commits: what is printed is durable.
      await opened.close();
    }
    if (json) printJson(result);
    else command.print(result);
    return 0;
  } catch (err) {
    return fail(failureOf(err), json);
  }
}

/** `phone-verify help key` or `phone-verify help key create`. */
function helpFor(commands: Record<string, Command>, words: string[]): { text: string; json: unknown } {
  if (words[0] === 'serve') return serveHelp();
  if (words.length === 1 && groupsOf(commands).has(words[0] as string) && !commands[words[0] as string]) {
    return groupHelp(commands, words[0] as string);
  }
  const { name, command } = resolve(commands, words);
  return commandHelp(name, command);
}
