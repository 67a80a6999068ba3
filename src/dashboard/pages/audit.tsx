// The audit log: who changed what in the workspace, newest first, filtered by action and by who did it, in pages
// with an "Older" link. The entries are written by the services that make the changes; this page only reads them
// (services.audit) and the members who may have made them (the "Who" filter). A bad filter (a hand-made address)
// shows the page again with the reason, under 400.
import type { FastifyInstance } from 'fastify';
import type { FC } from 'hono/jsx';
import { type AuditFilter, parseAuditFilter } from '../../audit/filter.js';
import type { AuditEntryView, AuditPage } from '../../audit/log.js';
import type { Services } from '../../services.js';
import { AUDIT_ACTIONS, type AuditAction } from '../../vocabulary/audit-actions.js';
import { Pager } from '../components.js';
import { formError } from '../forms.js';
import { BASE, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { workspaceOf } from '../session.js';

const PATH = `${BASE}/audit`;

/** What each action reads as. A record over the list: a new action cannot be added without its wording. */
const ACTION_LABELS: Record<AuditAction, string> = {
  'workspace.created': 'Workspace created',
  'workspace.renamed': 'Workspace renamed',
  'workspace.deleted': 'Workspace deleted',
  'countries.changed': 'Countries changed',
  'limits.changed': 'Limits changed',
  'number.added': 'Number added',
  'number.removed': 'Number removed',
  'number.carrier_changed': 'Number moved to another carrier',
  'key.created': 'API key created',
  'key.revoked': 'API key revoked',
  'carrier.added': 'Carrier account added',
  'carrier.rotated': 'Carrier credentials rotated',
  'carrier.removed': 'Carrier account removed',
  'carrier.tested': 'Carrier credentials tested',
  'member.added': 'Member added',
  'account.removed': 'Account removed',
  'account.password_reset': 'Password reset',
  'signin.succeeded': 'Signed in',
  'signin.failed': 'Sign-in failed (wrong password)',
  'fraud.settings_changed': 'Pumping guard settings changed',
  'fraud.allow_added': 'Added to the allow list',
  'fraud.allow_removed': 'Removed from the allow list',
  'fraud.block_lifted': 'Range block lifted',
  'webhook.added': 'Webhook endpoint added',
  'webhook.removed': 'Webhook endpoint removed',
  'webhook.secret_rotated': 'Webhook signing secret rotated',
  'webhook.disabled': 'Webhook endpoint disabled (failing for 5 days)',
  'webhook.enabled': 'Webhook endpoint enabled again',
  'webhook.test_sent': 'Webhook test event sent',
  'webhook.resent': 'Webhook event resent',
  'test_number.added': 'Test number added',
  'test_number.removed': 'Test number removed',
};

const ACTOR_LABELS: Record<string, string> = { cli: 'Operator (CLI)', system: 'System' };

interface Member {
  id: string;
  email: string;
}

/** The query as it was given, for the form and the page links: only values the filter accepted. */
interface Shown {
  action: string;
  actor: string;
  before: string;
}

function auditHref(shown: Shown, before = ''): string {
  const query = new URLSearchParams();
  if (shown.action) query.set('action', shown.action);
  if (shown.actor) query.set('actor', shown.actor);
  if (before) query.set('before', before);
  const qs = query.toString();
  return qs ? `${PATH}?${qs}` : PATH;
}

const Filters: FC<{ shown: Shown; members: Member[] }> = ({ shown, members }) => (
  <form method="get" action={PATH} class="filters" aria-label="Filter the audit log">
    <label>
      Action
      <select name="action">
        <option value="">Any action</option>
        {AUDIT_ACTIONS.map((a) => (
          <option value={a} selected={shown.action === a}>
            {ACTION_LABELS[a]}
          </option>
        ))}
      </select>
    </label>
    <label>
      Who
      <select name="actor">
        <option value="">Anyone</option>
        {members.map((m) => (
          <option value={m.id} selected={shown.actor === m.id}>
            {m.email}
          </option>
        ))}
        {Object.entries(ACTOR_LABELS).map(([value, label]) => (
          <option value={value} selected={shown.actor === value}>
            {label}
          </option>
        ))}
      </select>
    </label>
    <div class="filter-actions">
      <button type="submit">Filter</button>
      <a href={PATH} class="clear-filters">
        Clear
      </a>
    </div>
  </form>
);

/** A value as a person reads it: none for null, lists joined. */
function plain(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.map(plain).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** "name: value" lines; a change ({ from, to }) as "name: old → new", per setting where both are objects. */
function detailLines(details: Record<string, unknown>): string[] {
  const { from, to, ...rest } = details;
  const lines: string[] = [];
  if (from !== null && typeof from === 'object' && to !== null && typeof to === 'object') {
    const old = from as Record<string, unknown>;
    for (const [name, value] of Object.entries(to))
      lines.push(`${name}: ${plain(old[name])} → ${plain(value)}`);
  } else if (from !== undefined || to !== undefined) {
    lines.push(`${plain(from)} → ${plain(to)}`);
  }
  for (const [name, value] of Object.entries(rest)) {
    const change = value as { from?: unknown; to?: unknown } | null;
    lines.push(
      change !== null && typeof change === 'object' && 'from' in change && 'to' in change
        ? `${name}: ${plain(change.from)} → ${plain(change.to)}`
        : `${name}: ${plain(value)}`,
    );
  }
  return lines;
}

const Entry: FC<{ entry: AuditEntryView }> = ({ entry: e }) => (
  <tr>
    <td data-label="When" class="when">
      <time datetime={e.at}>{`${e.at.slice(0, 10)} ${e.at.slice(11, 19)}`}</time>
    </td>
    <td data-label="Who">{e.actor_email ?? ACTOR_LABELS[e.actor] ?? e.actor}</td>
    <td data-label="Action">{ACTION_LABELS[e.action] ?? e.action}</td>
    <td data-label="Target">{e.target ? <code>{e.target}</code> : <span class="muted">—</span>}</td>
    <td data-label="Details" class="audit-details">
      {Object.keys(e.details).length > 0 && (
        // One block: on a phone the cell lays out its label and this side by side.
        <div>
          {detailLines(e.details).map((line) => (
            <div>{line}</div>
          ))}
        </div>
      )}
    </td>
    <td data-label="Address">{e.address ?? <span class="muted">—</span>}</td>
  </tr>
);

function AuditPageView(data: {
  workspace: string;
  shown: Shown;
  members: Member[];
  page: AuditPage;
  error?: string;
}): Page {
  const { shown, page } = data;
  const filtered = Boolean(shown.action || shown.actor || shown.before);
  return (ctx) => (
    <Layout ctx={ctx} title="Audit log">
      <hgroup>
        <h1>Audit log</h1>
        <p>
          Who changed what in {data.workspace}, newest first: keys, numbers, carrier accounts, settings,
          members and sign-ins. Secrets never appear here.
        </p>
      </hgroup>
      <Filters shown={shown} members={data.members} />
      {data.error && (
        <p class="flash flash-error" role="alert">
          {data.error}
        </p>
      )}
      {page.entries.length === 0 ? (
        <article class="empty">
          <p>{filtered || data.error ? 'No entries match these filters.' : 'Nothing recorded yet.'}</p>
        </article>
      ) : (
        <div class="table-wrap">
          <table class="striped stack-table audit">
            <thead>
              <tr>
                <th scope="col">When (UTC)</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {page.entries.map((entry) => (
                <Entry entry={entry} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        newest={shown.before ? auditHref(shown) : undefined}
        older={page.older ? auditHref(shown, page.older) : undefined}
      />
    </Layout>
  );
}

export function registerAuditPage(
  app: FastifyInstance,
  services: Pick<Services, 'audit' | 'accounts'>,
): void {
  app.get('/audit', async (request, reply) => {
    const workspace = workspaceOf(request);
    const members = await services.accounts.listMembers(workspace.id);
    const query = (request.query ?? {}) as Record<string, unknown>;
    let filter: AuditFilter;
    try {
      filter = parseAuditFilter({ action: query.action, actor: query.actor, before: query.before });
    } catch (err) {
      const status = formError(err);
      const view = AuditPageView({
        workspace: workspace.name,
        shown: { action: '', actor: '', before: '' },
        members,
        page: { entries: [], older: null },
        error: (err as Error).message,
      });
      return renderPage(request, reply, view, { status });
    }
    const shown = {
      action: filter.action ?? '',
      actor: filter.actor ?? '',
      before: filter.before === undefined ? '' : String(filter.before),
    };
    const page = await services.audit.list(workspace.id, filter);
    return renderPage(request, reply, AuditPageView({ workspace: workspace.name, shown, members, page }));
  });
}
