// One verification's page: its fields, the delivery diagnostics, the timeline, and what to check when "the
// user says the code never arrived". Another workspace's id is not found (the service scopes the read).
import type { Child, FC } from 'hono/jsx';
import { TEST_PROVIDER_NAME } from '../../delivery/dev-provider.js';
import type { TimelineEvent } from '../../timeline/timeline.js';
import { diagnoseDelivery, type Finding } from '../../verification/diagnosis.js';
import type { VerificationRecord } from '../../verification/service.js';
import { BASE, Layout } from '../layout.js';
import type { Page } from '../render.js';
import {
  Badge,
  CHANNEL_LABELS,
  detailHref,
  errorMeaning,
  formatDuration,
  formatPhone,
  PATH,
  Time,
  type Verification,
} from './verification-view.js';

/** One line of the timeline: what happened, in words. */
function describeEvent(event: TimelineEvent, v: Verification): Child {
  const d = event.detail;
  const channel = CHANNEL_LABELS[String(d.channel ?? v.channel)] ?? v.channel;
  switch (event.kind) {
    case 'created':
      return `${channel} code created for ${formatPhone(String(d.to ?? v.phone))}, from ${d.from ?? v.from_number}`;
    case 'handed_over':
      // A test-mode code goes to the test outbox alone (delivery/router.ts): say so, not "handed over".
      if (d.provider === TEST_PROVIDER_NAME) {
        return `Delivered to the test outbox (test mode: no carrier was used; message ${d.provider_id})`;
      }
      return `Handed over to the ${d.provider} provider (delivery ${d.provider_id})${Number(d.hand_over_attempt) > 1 ? `, on attempt ${d.hand_over_attempt}` : ''}`;
    case 'retry_scheduled':
      return (
        <>
          Hand-over attempt {d.hand_over_attempt} to the {d.provider} provider failed ({d.error_message}); the
          next attempt is due at <Time ms={Number(d.next_attempt_at)} utc />
        </>
      );
    case 'gave_up':
      return `Gave up after ${d.attempts} failed hand-over attempts, before the code expired: ${d.error_message}`;
    case 'rejected':
      return `Rejected at hand-over: ${d.error_code} — ${d.error_message}`;
    case 'delivery_failed':
      return `The carrier reported that delivery failed: ${d.error_code} — ${d.error_message}`;
    case 'attempt':
      return `Wrong code entered (attempt ${d.attempt} of ${d.max_attempts})`;
    case 'verified':
      return `Verified: the right code, on attempt ${d.attempt} of ${d.max_attempts}`;
    case 'failed':
      return 'Failed: every attempt was used';
    case 'canceled':
      return d.key_name ? `Canceled through the API (key “${d.key_name}”)` : 'Canceled through the API';
    case 'expired':
      return (
        <>
          Expired: its time ran out at <Time ms={Number(d.expires_at ?? v.expires_at)} utc />
          {d.superseded_by && (
            <>
              {' '}
              (recorded when a <a href={detailHref(String(d.superseded_by))}>newer code</a> was sent)
            </>
          )}
        </>
      );
    case 'superseded':
      return (
        <>
          Superseded: a <a href={detailHref(String(d.by))}>newer code</a> was sent to the same number
        </>
      );
  }
}

const EVENT_TONE: Record<string, string> = {
  verified: 'ok',
  rejected: 'bad',
  gave_up: 'bad',
  retry_scheduled: 'warn',
  delivery_failed: 'bad',
  failed: 'bad',
  attempt: 'warn',
  expired: 'muted',
  canceled: 'muted',
  superseded: 'muted',
};

/** One finding of the diagnosis, in words. */
function describeFinding(f: Finding): Child {
  switch (f.kind) {
    case 'verified':
      return (
        <>
          The code arrived: the user entered it at <Time ms={f.at} utc />, on attempt {f.attempts}.
        </>
      );
    case 'carrier_unreachable':
      return (
        <>
          Nothing was sent: the carrier could not be reached ({f.attempts} hand-over attempts failed
          transiently, until the code's time ran out). Check the carrier's status and the account's
          credentials, then send a new code.
        </>
      );
    case 'not_handed_over':
      return (
        <>
          Not handed over yet:{' '}
          {f.retrying
            ? 'the carrier failed transiently and the hand-over is being retried'
            : 'the hand-over is under way'}{' '}
          until the code expires at <Time ms={f.expiresAt} utc />. Reload this page to follow it.
        </>
      );
    case 'refused':
      return (
        <>
          Nothing was sent: the carrier refused the number at hand-over (<code>{f.errorCode}</code>). Check
          that {formatPhone(f.phone)} is the user's number, is written correctly and can take{' '}
          {f.channel === 'sms' ? 'SMS' : 'calls'}.
        </>
      );
    case 'undelivered':
      return (
        <>
          The carrier took the {f.channel === 'sms' ? 'SMS' : 'call'}, then reported it did not reach the
          phone (<code>{f.errorCode}</code>). Check that the phone is on and has signal, and try the{' '}
          {f.channel === 'sms' ? 'voice' : 'SMS'} channel.
        </>
      );
    case 'superseded':
      return (
        <>
          A <a href={detailHref(f.newerId)}>newer code</a> was sent to this number, and this one stopped
          working then. The user may be typing the older code: ask them to use the newest message.
        </>
      );
    case 'canceled':
      return 'Your backend canceled this verification through the API; its code no longer works.';
    case 'expired':
      return (
        <>
          The code expired {formatDuration(f.lifetimeMs)} after it was sent,{' '}
          {f.attempts === 0 ? 'with no attempt' : `after ${f.attempts} wrong attempt(s)`}: the user waited too
          long (or never got it). Send a new code.
        </>
      );
    case 'failed':
      return `All ${f.maxAttempts} attempts were wrong. The user may have mistyped or used an older code; send a new one.`;
    case 'no_failure_reported':
      return (
        <>
          Handed over and no failure reported. Check the number ({formatPhone(f.phone)}
          {f.country ? `, ${f.country}` : ''}) with the user;{' '}
          {f.channel === 'sms'
            ? 'networks sometimes filter or delay SMS, so try a voice call.'
            : `unknown callers may be silenced: the call comes from ${formatPhone(f.fromNumber)}.`}{' '}
          The code is valid for {formatDuration(f.validForMs)} more.
        </>
      );
    case 'unexplained':
      return 'Nothing in the record explains it: check the number with the user.';
    case 'test_mode':
      return (
        <>
          It was sent with a <strong>test key</strong>: test codes go to the{' '}
          <a href={`${BASE}/inbox?mode=test`}>test inbox</a> only and never reach a phone. Use a live key for
          real users.
        </>
      );
  }
}

const Fact: FC<{ label: string; children?: Child }> = ({ label, children }) => (
  <>
    <dt>{label}</dt>
    <dd>{children}</dd>
  </>
);

function formatMetadata(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

export function DetailPage(record: VerificationRecord, now: number): Page {
  const v = record.verification;
  const meaning = errorMeaning(v.error_code);
  return (ctx) => (
    <Layout ctx={ctx} title={`Verification ${v.id}`}>
      <p class="small">
        <a href={v.mode === 'test' ? `${PATH}?mode=test` : PATH}>
          {v.mode === 'test' ? '« All test verifications' : '« All verifications'}
        </a>
      </p>
      <hgroup class="detail-head">
        <h1>
          {formatPhone(v.phone)} <Badge status={v.status} />
          {v.mode === 'test' && (
            <>
              {' '}
              <span class="badge badge-mode-test" title="Sent with a test key: it reached no carrier">
                test
              </span>
            </>
          )}
        </h1>
        <p class="muted">
          <code>{v.id}</code> · {CHANNEL_LABELS[v.channel] ?? v.channel} · sent <Time ms={v.created_at} utc />
        </p>
      </hgroup>

      <article class="support" aria-labelledby="support-title">
        <h2 id="support-title">If the user says the code never arrived</h2>
        <ul>
          {diagnoseDelivery(record, now).map((finding) => (
            <li>{describeFinding(finding)}</li>
          ))}
        </ul>
      </article>

      <div class="grid detail-grid">
        <article aria-labelledby="fields-title">
          <h2 id="fields-title">Verification</h2>
          <dl class="facts">
            <Fact label="Status">
              <Badge status={v.status} />
            </Fact>
            <Fact label="Channel">{CHANNEL_LABELS[v.channel] ?? v.channel}</Fact>
            <Fact label="Phone">
              {v.phone}
              {v.country ? ` (${v.country})` : ''}
            </Fact>
            <Fact label="Brand">{v.brand_name}</Fact>
            <Fact label="Created">
              <Time ms={v.created_at} utc />
            </Fact>
            <Fact label="Expires">
              <Time ms={v.expires_at} utc />
            </Fact>
            <Fact label="Verified">{v.verified_at === null ? '—' : <Time ms={v.verified_at} utc />}</Fact>
            <Fact label="Attempts">
              {v.attempts} of {v.max_attempts}
            </Fact>
          </dl>
        </article>
        <article aria-labelledby="delivery-title">
          <h2 id="delivery-title">Delivery</h2>
          <dl class="facts">
            <Fact label="Handed over">
              {v.delivery_ok === null ? 'Not yet' : v.delivery_ok === 1 ? 'Yes' : 'No'}
            </Fact>
            <Fact label="Provider">{v.delivery_provider ?? '—'}</Fact>
            <Fact label="Provider id">{v.provider_id ? <code>{v.provider_id}</code> : '—'}</Fact>
            <Fact label="From">{v.from_number}</Fact>
            <Fact label="Error code">
              {v.error_code ? (
                <>
                  <code>{v.error_code}</code>
                  {meaning && <small class="error-meaning">{meaning}</small>}
                </>
              ) : (
                '—'
              )}
            </Fact>
            <Fact label="Error message">{v.error_message ?? '—'}</Fact>
          </dl>
        </article>
      </div>

      <article aria-labelledby="timeline-title">
        <h2 id="timeline-title">Timeline</h2>
        {record.events.length === 0 ? (
          <p class="muted">No events were recorded for this verification (it predates the timeline).</p>
        ) : (
          <ol class="timeline">
            {record.events.map((event) => (
              <li class={`event event-${event.kind} tone-${EVENT_TONE[event.kind] ?? 'info'}`}>
                <Time ms={event.at} utc />
                <span>{describeEvent(event, v)}</span>
              </li>
            ))}
          </ol>
        )}
      </article>

      <article aria-labelledby="metadata-title">
        <h2 id="metadata-title">Metadata</h2>
        {v.metadata === '{}' ? (
          <p class="muted">None was sent with this verification.</p>
        ) : (
          <pre class="metadata">
            <code>{formatMetadata(v.metadata)}</code>
          </pre>
        )}
      </article>
    </Layout>
  );
}
