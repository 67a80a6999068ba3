// What every CLI command is made of: its shape, and how its options are read.
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

export const str = { type: 'string' } as const;

/** A string option with its description for `--help`. */
export const text = (description: string): OptionSpec => ({ type: 'string', description });

/** A boolean option (a flag taking no value) with its description for `--help`. */
export const flag = (description: string): OptionSpec => ({ type: 'boolean', description });
