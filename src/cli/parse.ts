// A command's arguments, read with node:util's parseArgs (lenient, by tokens) and judged here, so that every
// mistake is one plain sentence naming the option, with the nearest valid name where one is close: never Node's
// own parser text. Refused: unknown options, an option given twice, a missing value (or one that looks like the
// next option), a value given to a flag, and arguments where the command takes none (or more than it takes).
import { parseArgs } from 'node:util';
import type { AnyCommand as Command, Values } from './options.js';
import { UsageError } from './output.js';
import { didYouMean } from './suggest.js';

/** The synopsis of a command: the first line of its usage. */
export const synopsis = (command: Command) => `phone-verify ${command.usage.split('\n')[0]}`;

export function parseCommandArgs(
  name: string,
  command: Command,
  args: string[],
): { values: Values; positionals: string[] } {
  const { tokens } = parseArgs({
    args,
    options: Object.fromEntries(Object.entries(command.options).map(([name, o]) => [name, { type: o.type }])),
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const known = Object.keys(command.options).map((name) => `--${name}`);
  const values: Values = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const spec = Object.hasOwn(command.options, token.name) ? command.options[token.name] : undefined;
    const shown = token.rawName;
    if (!spec || !shown.startsWith('--')) {
      const hint = `; phone-verify ${name} --help lists its options`;
      throw new UsageError(`unknown option ${shown}${didYouMean(shown, known, hint)}`);
    }
    if (Object.hasOwn(values, token.name)) throw new UsageError(`${shown} given twice; give it once`);
    if (spec.type === 'boolean') {
      if (token.value !== undefined) throw new UsageError(`${shown} takes no value`);
      values[token.name] = true;
      continue;
    }
    // `--name --other`: parseArgs would take the next option as the value; refused as a missing value instead.
    if (token.value === undefined || (!token.inlineValue && token.value.startsWith('-'))) {
      throw new UsageError(
        token.value === undefined
          ? `${shown} needs a value`
          : `${shown} needs a value (for one that starts with "-", write ${shown}=VALUE)`,
      );
    }
    values[token.name] = token.value;
  }
  const wanted = command.positionals ?? 0;
  if (positionals.length > wanted) {
    // The argument itself is not echoed: it may be a secret typed where it does not belong.
    const takes = ['none', 'one', 'two'][wanted] ?? String(wanted);
    throw new UsageError(`unexpected argument (${name} takes ${takes}); usage: ${synopsis(command)}`);
  }
  if (positionals.length < wanted) throw new UsageError(`usage: ${synopsis(command)}`);
  return { values, positionals };
}
