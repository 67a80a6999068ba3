// What every CLI command is made of: its shape, and how its options are read.
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import { UsageError } from './output.js';

export type Values = Record<string, string | boolean | undefined>;

/** One option: its type and, for `--help`, what it means (common options have a default text in help.ts). */
export interface OptionSpec {
  type: 'string' | 'boolean';
  description?: string;
}

export interface Command {
  /** The first line is the synopsis; further lines (indented) say more. */
  usage: string;
  options: Record<string, OptionSpec>;
  positionals?: number;
  /** One line for the command lists (`phone-verify --help`, `phone-verify key`); without it, the usage is shown. */
  summary?: string;
  /** An example command line for `phone-verify <command> --help`. */
  example?: string;
  run(services: Services, values: Values, positionals: string[]): Promise<unknown>;
  print(result: unknown): void;
}

/**
 * A command that opens the databases it names itself (`db copy`, `db backup`) instead of the services on
 * DATABASE_URL: it must not create or migrate that database.
 */
export interface DatabaseCommand extends Omit<Command, 'run'> {
  runOnDatabases(config: Config, values: Values, positionals: string[]): Promise<unknown>;
}

export type AnyCommand = Command | DatabaseCommand;

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optional(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

export function wholeNumber(values: Values, name: string): number | undefined {
  const value = optional(values, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

/** `--workspace`: control characters (NUL above all) are never part of an id, refused before any query sees them. */
export function workspaceIdOf(values: Values): string {
  const id = required(values, 'workspace');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(id)) throw new UsageError('--workspace: must not hold control characters');
  return id;
}

/** Ids are short; a longer argument is a mistake (a pasted blob), refused before any query sees it. */
const ID_MAX = 100;

/** A positional id (`ACCOUNT_ID`, `NUMBER_ID`): no control characters, at most ID_MAX characters. */
export function idArgument(value: string | undefined, label: string): string {
  if (value === undefined || value === '') throw new UsageError(`${label} is required`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`${label}: must not hold control characters`);
  if (value.length > ID_MAX) throw new UsageError(`${label}: at most ${ID_MAX} characters`);
  return value;
}

/** The whole of standard input, less one trailing line break (what `echo` or a here-string adds). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

export const str = { type: 'string' } as const;

/** A string option with its description for `--help`. */
export const text = (description: string): OptionSpec => ({ type: 'string', description });

/** A boolean option (a flag taking no value) with its description for `--help`. */
export const flag = (description: string): OptionSpec => ({ type: 'boolean', description });
