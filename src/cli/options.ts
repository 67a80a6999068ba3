// What every CLI command is made of: its shape, and how its options are read.
import type { Config } from '../config.js';
import type { Services } from '../services.js';
import { UsageError } from './output.js';

export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  options: Record<string, { type: 'string' | 'boolean' }>;
  positionals?: number;
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

export const str = { type: 'string' } as const;
