// The inbox: what the development provider kept instead of delivering (no carrier is configured), newest first,
// for the session's workspace only. The list refreshes itself: dashboard.js re-fetches /inbox/messages (the list
// alone, same filter) every few seconds, so a code sent a moment ago appears without reloading.
import type { FastifyInstance } from 'fastify';
import type { Child, FC } from 'hono/jsx';
import type { OutboxMessageView, OutboxPage } from '../../delivery/outbox.js';
import type { Services } from '../../services.js';
import { type Mode, modeOfQuery } from '../../vocabulary/modes.js';
import { Pager, TestDataToggle, withMode } from '../components.js';
import { BASE, Layout } from '../layout.js';
import { renderPage } from '../render.js';
import { workspaceOf } from '../session.js';

const SHOWN = 50;
const REFRESH_MS = 3000;

/**
 * The filter's digits. "+61 412 345 678" finds +61412345678, and so does the national form "0412 345 678": a whole
 * national number (9 digits or more after a leading 0) drops its trunk 0. Anything shorter is a part ("0999").
 */
export function filterDigits(input: string): string {
  const digits = input.replace(/\D/g, '');
  return /^0\d{9,}$/.test(digits) ? digits.slice(1) : digits;
}

// Where the code sits in each kind of message: an SMS ends in it; a voice call reads it digit by digit, twice.
const CODE_PATTERNS: Record<string, RegExp> = {
  sms: /(\d+)(\s*)$/g,
  voice: /code is: ((?:\d, )*\d)\./g,
};

/** The body with its code(s) marked, so the code is the first thing the eye finds. */
export function markCode(channel: string, body: string): Child[] {
  const pattern = CODE_PATTERNS[channel];
  if (!pattern) return [body];
  const parts: Child[] = [];
  let last = 0;
  for (const match of body.matchAll(pattern)) {
    const code = match[1] ?? '';
    const start = (match.index ?? 0) + match[0].indexOf(code);
    parts.push(body.slice(last, start), <mark>{code}</mark>);
    last = start + code.length;
  }
  parts.push(body.slice(last));
  return parts.filter((p) => p !== '');
}

const CHANNELS: Record<string, string> = { sms: 'SMS', voice: 'Voice call' };
const readableTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;

const Message: FC<{ message: OutboxMessageView }> = ({ message: m }) => (
  <li class="inbox-message">
    <div class="inbox-meta">
      <span class={`badge badge-channel-${m.channel}`}>{CHANNELS[m.channel] ?? m.channel}</span>
      <span class="inbox-route">
        <span class="visually-hidden">From </span>
        <span class="muted">{m.from}</span> <span aria-hidden="true">→</span>
        <span class="visually-hidden"> to </span> <strong>{m.to}</strong>
      </span>
      <time datetime={m.created_at} class="muted small">
        {readableTime(m.created_at)}
      </time>
    </div>
    <p class="message-body">{markCode(m.channel, m.body)}</p>
    <a class="small muted inbox-link" href={`${BASE}/verifications/${encodeURIComponent(m.verification_id)}`}>
      Verification {m.verification_id}
    </a>
  </li>
);

/** The inbox's address for a filter and a page (`before`: the cursor of an older page). */
function inboxHref(filter: string, before?: number, test = false): string {
  const query = new URLSearchParams();
  if (filter) query.set('to', filter);
  if (before !== undefined) query.set('before', String(before));
  return `${BASE}/inbox${withMode(query, test)}`;
}

/** The cursor of an older page, read tolerantly: anything but a whole number shows the newest page. */
export function parseBefore(value: unknown): number | undefined {
  const text = String(value ?? '');
  const before = /^\d{1,16}$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(before) ? before : undefined;
}

/** The refreshed region's content. Nothing in it changes unless a message arrives, so text stays selectable. */
export const MessageList: FC<{
  page: OutboxPage;
  filter: string;
  before: number | undefined;
  /** The test data (the messages of test keys' codes) rather than the live development messages. */
  test?: boolean;
}> = ({ page, filter, before, test = false }) => {
  const { messages } = page;
  const pager = (
    <Pager
      newest={before !== undefined ? inboxHref(filter, undefined, test) : undefined}
      older={page.older !== undefined ? inboxHref(filter, page.older, test) : undefined}
    />
  );
  if (messages.length === 0) {
    if (before !== undefined) return <p class="empty-state">No older messages.{pager}</p>;
    if (filter) return <p class="empty-state">No messages to numbers containing “{filter}”.</p>;
    return test ? (
      <div class="empty-state">
        <h2>No test messages yet</h2>
        <p>
          Codes sent with a test key (pv_test_…) are kept here and never reach a carrier. A test number's code
          is its fixed one.
        </p>
      </div>
    ) : (
      <div class="empty-state">
        <h2>No messages yet</h2>
        <p>
          While no carrier is configured, codes are sent through the development provider: it delivers nothing
          to a phone and keeps each message here instead — the SMS text, or the words the voice call would
          say. Send a code through the API and it appears here within a few seconds.
        </p>
        <p class="small muted">
          Test numbers: one ending in 0999 is rejected at once (nothing is kept); one ending in 0998 is kept,
          then reported undelivered.
        </p>
      </div>
    );
  }
  return (
    <>
      <ol class="inbox-list" reversed>
        {messages.map((m) => (
          <Message message={m} />
        ))}
      </ol>
      {pager}
    </>
  );
};

export function registerInboxPages(app: FastifyInstance, services: Pick<Services, 'outbox'>): void {
  const load = (workspaceId: string, filter: string, before: number | undefined, mode: Mode) =>
    services.outbox.page({ workspaceId, toDigits: filter || undefined, mode }, SHOWN, before);

  app.get<{ Querystring: { to?: string; before?: string; mode?: string } }>(
    '/inbox',
    async (request, reply) => {
      const workspace = workspaceOf(request);
      const input = String(request.query.to ?? '').slice(0, 40);
      const filter = filterDigits(input);
      const before = parseBefore(request.query.before);
      // Live messages unless the "Test data" toggle asks for the test ones.
      const mode = modeOfQuery(request.query);
      const test = mode === 'test';
      const page = await load(workspace.id, filter, before, mode);
      const query = withMode(new URLSearchParams(filter ? { to: filter } : {}), test);
      return renderPage(request, reply, (ctx) => (
        <Layout ctx={ctx} title="Inbox">
          <hgroup>
            <h1>Inbox</h1>
            <p>
              Messages of the development provider for {workspace.name}, newest first. This page updates by
              itself.
            </p>
          </hgroup>
          <TestDataToggle
            test={test}
            href={(on) => `${BASE}/inbox${withMode(new URLSearchParams(filter ? { to: filter } : {}), on)}`}
          />
          <search>
            <form method="get" action={`${BASE}/inbox`} class="inbox-filter">
              {test && <input type="hidden" name="mode" value="test" />}
              <label for="inbox-to">Phone number</label>
              <fieldset class="input-with-button">
                <input
                  id="inbox-to"
                  name="to"
                  type="search"
                  inputmode="tel"
                  placeholder="e.g. +61 412 345 678 or 0998"
                  value={input}
                  aria-describedby="inbox-to-help"
                />
                <button type="submit">Filter</button>
              </fieldset>
              <small id="inbox-to-help">
                Shows messages to numbers containing these digits.{' '}
                {filter && <a href={inboxHref('', undefined, test)}>Show all messages</a>}
              </small>
            </form>
          </search>
          {/* The newest page refreshes itself; an older one stays as it is (its messages do not change). */}
          <section
            class="inbox"
            aria-label="Messages"
            data-refresh={before === undefined ? `${BASE}/inbox/messages${query}` : undefined}
            data-interval={before === undefined ? String(REFRESH_MS) : undefined}
          >
            <MessageList page={page} filter={filter} before={before} test={test} />
          </section>
        </Layout>
      ));
    },
  );

  // The list alone, for the page's self-refresh; behind the session like every page, scoped to its workspace.
  app.get<{ Querystring: { to?: string; mode?: string } }>('/inbox/messages', async (request, reply) => {
    const workspace = workspaceOf(request);
    const filter = filterDigits(String(request.query.to ?? '').slice(0, 40));
    const mode = modeOfQuery(request.query);
    const page = await load(workspace.id, filter, undefined, mode);
    return reply
      .header('cache-control', 'no-store')
      .type('text/html; charset=utf-8')
      .send(String(<MessageList page={page} filter={filter} before={undefined} test={mode === 'test'} />));
  });
}
