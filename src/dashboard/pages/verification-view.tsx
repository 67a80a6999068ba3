// What both verification pages show alike: times, durations, numbers, status badges and links.
import type { FC } from 'hono/jsx';
import { toTimestamp } from '../../clock.js';
import { DELIVERY_ERROR_CODES } from '../../delivery/error-codes.js';
import type { VerificationRecord } from '../../verification/service.js';
import { formatInternational } from '../../workspaces/phone-number.js';
import { BASE } from '../layout.js';

export const PATH = `${BASE}/verifications`;
export type Verification = VerificationRecord['verification'];

export const CHANNEL_LABELS: Record<string, string> = { voice: 'Voice call', sms: 'SMS' };

/** "2026-11-21 09:30:05" (UTC). */
export function formatTime(ms: number): string {
  return toTimestamp(ms).replace('T', ' ').slice(0, 19);
}

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return s % 60 ? `${min} min ${s % 60} s` : `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

export function formatPhone(e164: string): string {
  return formatInternational(e164);
}

export function errorMeaning(code: string | null | undefined): string | undefined {
  return code ? DELIVERY_ERROR_CODES[code as keyof typeof DELIVERY_ERROR_CODES] : undefined;
}

export const Time: FC<{ ms: number; utc?: boolean }> = ({ ms, utc }) => (
  <time datetime={toTimestamp(ms)}>{utc ? `${formatTime(ms)} UTC` : formatTime(ms)}</time>
);

export const Badge: FC<{ status: string }> = ({ status }) => (
  <span class={`badge badge-${status}`}>{status}</span>
);

export const detailHref = (id: string) => `${PATH}/${encodeURIComponent(id)}`;
