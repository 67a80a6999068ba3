// The pieces of the Webhooks page (webhooks.tsx): the secret shown once, an endpoint's card with its actions and
// its attempts, and the add form.
import type { FC } from 'hono/jsx';
import { WEBHOOK_EVENT_TYPES } from '../../vocabulary/webhook-events.js';
import type { AttemptView, EndpointView } from '../../webhooks/service.js';
import { ConfirmedAction } from '../components.js';
import { BASE, Csrf } from '../layout.js';

export const PATH = `${BASE}/webhooks`;

export interface Shown {
  endpoint: EndpointView;
  attempts: AttemptView[];
}

/** The secret of an endpoint just added or rotated: the response that shows it is the only place it appears. */
export interface ShownSecret {
  endpointId: string;
  secret: string;
  rotated: boolean;
}

export interface FormValues {
  url: string;
  events: string[];
}

const When: FC<{ at: string | null }> = ({ at }) =>
  at === null ? (
    <span class="muted">—</span>
  ) : (
    <time datetime={at} title={at}>{`${at.slice(0, 10)} ${at.slice(11, 19)} UTC`}</time>
  );

export const NewSecret: FC<{ shown: ShownSecret }> = ({ shown }) => (
  <article class="key-created" aria-labelledby="new-secret-title">
    <h2 id="new-secret-title">Signing secret of {shown.endpointId}</h2>
    <p class="warning" role="alert">
      <strong>Copy this secret now: it cannot be shown again.</strong>{' '}
      {shown.rotated
        ? 'The previous secret keeps signing alongside it for 24 hours, so you can deploy it without losing events.'
        : 'Your backend verifies every webhook with it (docs/webhooks.md).'}
    </p>
    <label for="new-webhook-secret">Signing secret</label>
    <div class="copy-group">
      <input id="new-webhook-secret" class="secret-once" readonly value={shown.secret} autocomplete="off" />
      <button type="button" data-copy="#new-webhook-secret">
        Copy
      </button>
    </div>
  </article>
);

const Attempts: FC<{ attempts: AttemptView[]; csrf: string; disabled: boolean }> = ({
  attempts,
  csrf,
  disabled,
}) =>
  attempts.length === 0 ? (
    <p class="muted">No delivery attempts yet.</p>
  ) : (
    <table class="striped attempts">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Answer</th>
          <th scope="col">Latency</th>
          <th scope="col">
            <span class="visually-hidden">Resend</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr>
            <td>
              <When at={a.at} />
            </td>
            <td>
              <code>{a.type}</code>
              <br />
              <small class="muted">{a.event_id}</small>
            </td>
            <td>
              {a.status === null ? <span class="muted">no answer</span> : <strong>{String(a.status)}</strong>}
              {a.error && (
                <>
                  <br />
                  <small>{a.error}</small>
                </>
              )}
              {a.excerpt && (
                <>
                  <br />
                  <small class="muted">{a.excerpt}</small>
                </>
              )}
            </td>
            <td>{`${a.latency_ms} ms`}</td>
            <td>
              {!disabled && (
                <form method="post" action={`${PATH}/attempts/${encodeURIComponent(a.id)}/resend`}>
                  <Csrf token={csrf} />
                  <button
                    type="submit"
                    class="secondary outline small-button"
                    aria-label={`Resend ${a.event_id}`}
                  >
                    Resend
                  </button>
                </form>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );

export const EndpointCard: FC<{ shown: Shown; csrf: string }> = ({
  shown: { endpoint: e, attempts },
  csrf,
}) => {
  const id = encodeURIComponent(e.id);
  const disabled = e.status === 'disabled';
  return (
    <article class="webhook-endpoint" id={e.id} aria-labelledby={`${e.id}-title`}>
      <h3 id={`${e.id}-title`}>
        <code>{e.url}</code>
      </h3>
      {disabled && (
        <p class="warning" role="status">
          <strong>Disabled</strong> on <When at={e.disabled_at} /> after failing for five days (since{' '}
          <When at={e.failing_since} />
          ). No events are sent to it; those of the time it was disabled are not sent later.
        </p>
      )}
      {!disabled && e.failing_since && (
        <p class="warning" role="status">
          Failing since <When at={e.failing_since} />: after five days of failures it is disabled.
        </p>
      )}
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{e.id}</code>
        </dd>
        <dt>Events</dt>
        <dd>{e.events === null ? 'All events' : e.events.join(', ')}</dd>
        <dt>Added</dt>
        <dd>
          <When at={e.created_at} />
        </dd>
      </dl>
      <div class="actions">
        {disabled && (
          <form method="post" action={`${PATH}/${id}/enable`} class="inline-form">
            <Csrf token={csrf} />
            <button type="submit" class="small-button" aria-label={`Enable ${e.id} again`}>
              Enable again
            </button>
          </form>
        )}
        {!disabled && (
          <form method="post" action={`${PATH}/${id}/test`} class="inline-form">
            <Csrf token={csrf} />
            <button type="submit" class="secondary small-button" aria-label={`Send test event to ${e.id}`}>
              Send test event
            </button>
          </form>
        )}
        <ConfirmedAction
          action={`${PATH}/${id}/rotate`}
          confirm="Rotate the signing secret? The current one keeps signing for 24 hours."
          label="Rotate secret"
          describe={`Rotate the signing secret of ${e.id}`}
          csrf={csrf}
        />
        <ConfirmedAction
          action={`${PATH}/${id}/remove`}
          confirm={`Remove the endpoint ${e.url}? Its queued events are dropped.`}
          label="Remove"
          describe={`Remove endpoint ${e.id}`}
          csrf={csrf}
        />
      </div>
      <h4>Delivery attempts</h4>
      <Attempts attempts={attempts} csrf={csrf} disabled={disabled} />
    </article>
  );
};

export const AddForm: FC<{ csrf: string; error?: string; values?: FormValues }> = ({
  csrf,
  error,
  values,
}) => (
  <section id="add" aria-labelledby="add-title">
    <h2 id="add-title">Add an endpoint</h2>
    <form method="post" action={PATH}>
      <Csrf token={csrf} />
      {error && (
        <p class="error" role="alert" id="add-error">
          {error}
        </p>
      )}
      <label for="webhook-url">URL</label>
      <input
        id="webhook-url"
        name="url"
        type="url"
        required
        maxlength={2048}
        placeholder="https://api.example.com/hooks/phone-verify"
        value={values?.url ?? ''}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'add-error' : undefined}
      />
      <fieldset>
        <legend>Events (none checked: all events)</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label>
            <input type="checkbox" name="events" value={type} checked={values?.events.includes(type)} />
            <code>{type}</code>
          </label>
        ))}
      </fieldset>
      <button type="submit">Add endpoint</button>
    </form>
  </section>
);
