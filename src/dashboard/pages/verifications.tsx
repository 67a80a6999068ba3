// The verifications log: newest first, filtered by phone, status, channel and date, numbers masked, in pages
// with an "Older" link. Each row opens the verification's own page (verification-detail.tsx).
import type { FastifyInstance } from 'fastify';
import type { FC } from 'hono/jsx';
import type { Services } from '../../services.js';
import {
  LOG_STATUSES,
  type LogFilter,
  type LogPage,
  maskPhone,
  parseLogFilter,
  REFUSED,
} from '../../verification/log.js';
import type { RefusalReason } from '../../vocabulary/refusal-reasons.js';
import { Pager, TestDataToggle, withMode } from '../components.js';
import { BASE, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { workspaceOf } from '../session.js';
import { DetailPage } from './verification-detail.js';
import { Badge, CHANNEL_LABELS, detailHref, PATH, Time } from './verification-view.js';

function filterQuery(filter: LogFilter, before = ''): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['phone', 'status', 'channel', 'from', 'to'] as const) {
    if (filter[name]) query.set(name, filter[name]);
  }
  if (before) query.set('before', before);
  return query;
}

function logHref(filter: LogFilter, before = ''): string {
  return PATH + withMode(filterQuery(filter, before), filter.mode === 'test');
}

const Filters: FC<{ filter: LogFilter }> = ({ filter }) => (
  <form method="get" action={PATH} class="filters" aria-label="Filter verifications">
    {filter.mode === 'test' && <input type="hidden" name="mode" value="test" />}
    <label>
      Phone
      <input
        type="search"
        name="phone"
        inputmode="tel"
        autocomplete="off"
        placeholder="+614… or 156"
        aria-describedby="phone-hint"
        value={filter.phone}
      />
    </label>
    <label>
      Status
      <select name="status">
        <option value="">Any status</option>
        {LOG_STATUSES.map((s) => (
          <option value={s} selected={filter.status === s}>
            {s === REFUSED ? 'refused (never sent)' : s}
          </option>
        ))}
      </select>
    </label>
    <label>
      Channel
      <select name="channel">
        <option value="">Any channel</option>
        {Object.entries(CHANNEL_LABELS).map(([value, label]) => (
          <option value={value} selected={filter.channel === value}>
            {label}
          </option>
        ))}
      </select>
    </label>
    <label>
      From (UTC)
      <input type="date" name="from" value={filter.from} />
    </label>
    <label>
      To (UTC)
      <input type="date" name="to" value={filter.to} />
    </label>
    <div class="filter-actions">
      <button type="submit">Filter</button>
      <a href={PATH + withMode(new URLSearchParams(), filter.mode === 'test')} class="clear-filters">
        Clear
      </a>
    </div>
    <small id="phone-hint" class="filter-hint">
      Phone: a whole number (+61 412 345 678, 0412 345 678), its start (+61 4…, 0412…) or its last digits
      (678). Digits from the middle of a number are not looked for.
    </small>
  </form>
);

type Row = LogPage['rows'][number];

/** Which rule refused a send, in words. */
const REFUSAL_LABELS: Record<RefusalReason, string> = {
  range_velocity: 'Range velocity',
  low_conversion: 'Low conversion',
  number_type: 'Number type',
  guess_ceiling: 'Failed-guess ceiling',
};

/** A refused send: the rule, and the Fraud page's block that refused it. */
const RefusalCell: FC<{ row: Row }> = ({ row }) => {
  const label = REFUSAL_LABELS[row.reason as RefusalReason] ?? row.reason ?? '';
  return row.block_id ? (
    <a
      href={`${BASE}/fraud#block-${encodeURIComponent(row.block_id)}`}
      title="Open the block on the Fraud page"
    >
      {label}
    </a>
  ) : (
    <span>{label}</span>
  );
};

const DeliveryCell: FC<{ row: Row }> = ({ row }) => {
  // The rule that refused it is beside its status (shown on a phone too); nothing reached a carrier.
  if (row.status === REFUSED) return <span class="muted">Not sent</span>;
  if (row.error_code) return <span class="delivery-bad">{row.error_code}</span>;
  if (row.delivery_ok === 1) return <span class="muted">Handed over</span>;
  return <span class="muted">—</span>;
};

function LogPageView(workspace: string, filter: LogFilter, page: LogPage): Page {
  const filtered = Boolean(filter.phone || filter.status || filter.channel || filter.from || filter.to);
  return (ctx) => (
    <Layout ctx={ctx} title="Verifications">
      <hgroup>
        <h1>Verifications</h1>
        <p>
          Every code sent from {workspace}, newest first, and every send refused before a code was made
          (status refused, with the rule that refused it). Open one for its timeline and delivery diagnostics.
        </p>
      </hgroup>
      <TestDataToggle
        test={filter.mode === 'test'}
        href={(test) => PATH + withMode(filterQuery(filter), test)}
      />
      <Filters filter={filter} />
      {page.rows.length === 0 ? (
        <article class="empty">
          <p>
            {page.incomplete
              ? 'None of the newest verifications looked through match these filters.'
              : filtered || filter.before
                ? 'No verifications match these filters.'
                : filter.mode === 'test'
                  ? 'No test verifications yet. Codes sent with a test key (pv_test_…) appear here.'
                  : 'No verifications yet. Codes sent through the API appear here.'}
          </p>
        </article>
      ) : (
        <div class="table-wrap">
          <table class="striped log">
            <thead>
              <tr>
                <th scope="col">Created (UTC)</th>
                <th scope="col">Phone</th>
                <th scope="col">Status</th>
                <th scope="col">Channel</th>
                <th scope="col" class="hide-narrow">
                  Attempts
                </th>
                <th scope="col" class="hide-narrow">
                  Delivery
                </th>
              </tr>
            </thead>
            <tbody>
              {page.rows.map((row) => (
                <tr class={row.status === REFUSED ? 'refused' : undefined}>
                  <td class="when">
                    {row.status === REFUSED ? (
                      <Time ms={row.created_at} />
                    ) : (
                      <a href={detailHref(row.id)} title="Open this verification">
                        <Time ms={row.created_at} />
                      </a>
                    )}
                  </td>
                  <td class="phone">{maskPhone(row.phone)}</td>
                  <td class="status">
                    <Badge status={row.status} />
                    {row.status === REFUSED && (
                      <span class="refusal-reason">
                        {' '}
                        <RefusalCell row={row} />
                      </span>
                    )}
                  </td>
                  <td class="channel">{CHANNEL_LABELS[row.channel] ?? row.channel}</td>
                  <td class="hide-narrow">
                    {row.status === REFUSED ? '—' : `${row.attempts}/${row.max_attempts}`}
                  </td>
                  <td class="hide-narrow">
                    <DeliveryCell row={row} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {page.incomplete && (
        <p class="muted search-note" role="status">
          Many verifications match this part of a number, so only the newest were looked through; older ones
          may match too: see the older page.
        </p>
      )}
      <Pager
        newest={filter.before ? logHref(filter) : undefined}
        older={page.older ? logHref(filter, page.older) : undefined}
      />
    </Layout>
  );
}

export function registerVerificationPages(
  app: FastifyInstance,
  services: Pick<Services, 'log' | 'verifications' | 'clock'>,
): void {
  app.get('/verifications', async (request, reply) => {
    const workspace = workspaceOf(request);
    const filter = parseLogFilter(request.query as Record<string, unknown>);
    const page = await services.log.list(workspace.id, filter);
    return renderPage(request, reply, LogPageView(workspace.name, filter, page));
  });

  app.get<{ Params: { id: string } }>('/verifications/:id', async (request, reply) => {
    // Another workspace's id is not found, exactly like an unknown one.
    const record = await services.verifications.inspect(workspaceOf(request).id, request.params.id);
    return renderPage(request, reply, DetailPage(record, services.clock.now()));
  });
}
