// The CLI entry: `phone-verify <command> [options]`. One-line reasons on stderr and a non-zero exit on failure:
// 1 when the command itself failed, 2 when it was called wrongly.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import type { AnyCarrier } from '../delivery/carriers/descriptor.js';
import { AppError } from '../errors.js';
import { openServices } from '../services.js';
import { carrierCommands } from './carrier-commands.js';
import { COMMANDS } from './commands.js';
import type { AnyCommand } from './options.js';
import { printJson, UsageError } from './output.js';

const help = (commands: Record<string, AnyCommand>) => `phone-verify: phone verification by voice call or SMS

Usage: phone-verify <command> [options] [--json]

Commands:
  serve                       run the HTTP service (PORT, HOST, DATABASE_URL, PHONE_VERIFY_SECRET, PUBLIC_URL;
                              PHONE_VERIFY_PREVIOUS_SECRET while the secret is being changed)
${Object.values(commands)
  .map((c) => `  ${c.usage}`)
  .join('\n')}

Every command takes --json: stdout then holds exactly one JSON value.`;

/** A field error names the option to fix (`--type: …`); other errors read as they are. */
function cliMessage(err: AppError): string {
  const fieldErrors = err.extras.errors ?? [];
  if (fieldErrors.length === 0) return err.message;
  return fieldErrors.map((e) => `--${e.field.replaceAll('_', '-')}: ${e.message}`).join('; ');
}

function fail(message: string, code: number): number {
  process.stderr.write(`error: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
  return code;
}

/** `carrierTypes`: the carriers to know (default: the built-in ones); a test may run commands with its own. */
export async function main(argv: string[], carrierTypes?: readonly AnyCarrier[]): Promise<number> {
  const commands = carrierTypes ? { ...COMMANDS, ...carrierCommands(carrierTypes) } : COMMANDS;
  const HELP = help(commands);
  const json = argv.includes('--json');
  const args = argv.filter((a) => a !== '--json');
  if (args.length === 0) {
    // A failure like any other: one line on stderr; with --json, nothing on stdout.
    if (!json) process.stdout.write(`${HELP}\n`);
    return fail('no command given; run phone-verify --help', 2);
  }
  if (args[0] === 'help' || args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  try {
    const config = loadConfig();
    if (args[0] === 'serve') {
      if (args.length > 1)
        throw new UsageError(`serve takes no arguments (configure it with the environment)`);
      // Loaded only here: the other commands start faster without the HTTP stack.
      const { serve } = await import('../main.js');
      await serve(config, { json });
      return 0;
    }
    const name = args[0] === 'outbox' ? 'outbox' : `${args[0]} ${args[1] ?? ''}`.trim();
    const command = commands[name];
    if (!command) throw new UsageError(`unknown command "${name}"; run phone-verify --help`);
    const { values, positionals } = parseArgs({
      args: args.slice(name.split(' ').length),
      options: command.options,
      allowPositionals: true,
      strict: true,
    });
    if (positionals.length !== (command.positionals ?? 0))
      throw new UsageError(`usage: phone-verify ${command.usage}`);
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
    if (err instanceof UsageError) return fail(err.message, 2);
    if (err instanceof ConfigError) return fail(err.message, 2);
    if (err instanceof AppError) return fail(cliMessage(err), 1);
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) {
      return fail(err.message, 2);
    }
    return fail(err instanceof Error ? err.message : String(err), 1);
  }
}
