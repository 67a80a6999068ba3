// Endpoints and attempts as the CLI and the dashboard show them (never a secret), and the event filter as given.
import { toTimestamp } from '../clock.js';
import { invalidField } from '../errors.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../vocabulary/webhook-events.js';
import type * as repo from './repository.js';

export interface EndpointView {
  id: string;
  url: string;
  /** null: every event type. */
  events: WebhookEventType[] | null;
  status: 'enabled' | 'disabled';
  failing_since: string | null;
  disabled_at: string | null;
  created_at: string;
}

export interface AttemptView {
  id: string;
  event_id: string;
  type: string;
  at: string;
  status: number | null;
  latency_ms: number;
  error: string | null;
  excerpt: string | null;
}

const stamp = (ms: number | null) => (ms === null ? null : toTimestamp(Number(ms)));

export function presentEndpoint(row: repo.EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    events: row.events === null ? null : (row.events.split(',').filter(Boolean) as WebhookEventType[]),
    status: row.disabled_at === null ? 'enabled' : 'disabled',
    failing_since: stamp(row.failing_since),
    disabled_at: stamp(row.disabled_at),
    created_at: toTimestamp(Number(row.created_at)),
  };
}

export function presentAttempt(row: repo.AttemptRow): AttemptView {
  return {
    id: row.id,
    event_id: row.event_id,
    type: row.type,
    at: toTimestamp(Number(row.at)),
    status: row.status,
    latency_ms: row.latency_ms,
    error: row.error,
    excerpt: row.excerpt,
  };
}

/** An event list as given (`a,b`), checked: undefined (every type) or the distinct known types. */
export function parseEventTypes(raw: string | readonly string[] | undefined): WebhookEventType[] | undefined {
  if (raw === undefined) return undefined;
  const names = (typeof raw === 'string' ? raw.split(',') : [...raw]).map((n) => n.trim());
  if (names.length === 0 || names.every((n) => n === '')) {
    throw invalidField('events', `must name at least one event type: ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  }
  const known = new Set<string>(WEBHOOK_EVENT_TYPES);
  for (const name of names) {
    if (!known.has(name)) {
      const shown = JSON.stringify(name.slice(0, 60));
      throw invalidField(
        'events',
        `unknown event type ${shown}; valid types: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      );
    }
  }
  return WEBHOOK_EVENT_TYPES.filter((t) => names.includes(t));
}
