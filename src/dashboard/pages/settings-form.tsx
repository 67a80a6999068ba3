// Shared pieces of the workspace settings page: its data, a failed form's note, number formatting.
import type { FC } from 'hono/jsx';
import type { CarrierAccountListing } from '../../carrier-accounts/service.js';
import type { NumberView, WorkspaceSettings } from '../../workspaces/service.js';
import type { TestNumberView } from '../../workspaces/test-numbers.js';
import { BASE } from '../layout.js';

export const PATH = `${BASE}/settings`;

export type Section = 'name' | 'numbers' | 'test-numbers' | 'countries' | 'limits';

/** A failed form: which section it belongs to, why, and what was typed (shown again). */
export interface FormFailure {
  section: Section;
  message: string;
  values: Record<string, string | string[]>;
}

export interface SettingsData {
  settings: WorkspaceSettings;
  numbers: NumberView[];
  /** The workspace's test numbers and their fixed codes. */
  testNumbers: TestNumberView[];
  /** The workspace's carrier accounts, which its numbers can send through. */
  carriers: CarrierAccountListing[];
  /** How people read a carrier type (its descriptor's label). */
  carrierLabels: Readonly<Record<string, string>>;
  failure?: FormFailure;
}

export const fmt = (n: number) => n.toLocaleString('en-US');

export const ErrorNote: FC<{ failure?: FormFailure; section: Section }> = ({ failure, section }) =>
  failure?.section === section ? (
    <p class="flash flash-error" role="alert">
      {failure.message}
    </p>
  ) : null;
