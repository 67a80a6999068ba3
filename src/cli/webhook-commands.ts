// The webhook commands (docs/webhooks.md): endpoints of a workspace. `webhook add` and `webhook rotate-secret`
// print the signing secret this once; nothing else ever shows it.
import { OPERATOR } from '../audit/actor.js';
import type { EndpointView } from '../webhooks/service.js';
import { type Command, optional, required, str, workspaceIdOf } from './options.js';
import { printRecord, printTable } from './output.js';

const ENDPOINT_COLUMNS = ['id', 'url', 'events', 'status', 'failing_since', 'created_at'];

/** An endpoint's events as a table shows them: `all` for every type. */
const shownEvents = (e: EndpointView) => ({ ...e, events: e.events ?? 'all' });

export const WEBHOOK_COMMANDS: Record<string, Command> = {
  'webhook add': {
    usage: 'webhook add --workspace WS_ID --url URL [--events TYPE,…]',
    summary: 'add an endpoint; prints its signing secret this once',
    options: { workspace: str, url: str, events: str },
    run: (s, v) =>
      s.webhooks.addEndpoint(
        { workspaceId: workspaceIdOf(v), url: required(v, 'url'), events: optional(v, 'events') },
        OPERATOR,
      ),
    print: (r) => {
      const added = r as { events: string[] | null };
      printRecord({ ...added, events: added.events ?? 'all' });
      process.stderr.write(
        '\nThe signing secret is shown this once: keep it where your backend verifies webhooks.\n',
      );
    },
  },
  'webhook list': {
    usage: 'webhook list --workspace WS_ID',
    summary: 'list the endpoints, their status and failures',
    options: { workspace: str },
    run: (s, v) => s.webhooks.listEndpoints(workspaceIdOf(v)),
    print: (r) => printTable((r as EndpointView[]).map(shownEvents), ENDPOINT_COLUMNS),
  },
  'webhook remove': {
    usage: 'webhook remove WEBHOOK_ID',
    summary: 'remove an endpoint; its queued events are dropped',
    options: {},
    positionals: 1,
    run: (s, _v, [id]) => s.webhooks.removeEndpoint(id ?? '', OPERATOR),
    print: (r) => printRecord(shownEvents(r as EndpointView)),
  },
  'webhook enable': {
    usage: 'webhook enable WEBHOOK_ID',
    summary:
      'enable again an endpoint the service disabled after five days of failures (same URL and secret)',
    options: {},
    positionals: 1,
    run: (s, _v, [id]) => s.webhooks.enableEndpoint(id ?? '', OPERATOR),
    print: (r) => printRecord(shownEvents(r as EndpointView)),
  },
  'webhook rotate-secret': {
    usage: 'webhook rotate-secret WEBHOOK_ID',
    summary: 'a new signing secret, shown once; the old one signs alongside it for 24 hours',
    options: {},
    positionals: 1,
    run: (s, _v, [id]) => s.webhooks.rotateSecret(id ?? '', OPERATOR),
    print: (r) => {
      printRecord(r as object);
      process.stderr.write(
        '\nThe new secret is shown this once. The old one keeps signing alongside it until previous_secret_expires_at.\n',
      );
    },
  },
};
