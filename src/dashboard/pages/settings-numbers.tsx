// The settings page's numbers section: each number's type and what it can send, adding and removing numbers,
// and the plain warning where the workspace cannot send SMS (or anything).
import type { FC } from 'hono/jsx';
import type { CarrierAccountListing } from '../../carrier-accounts/service.js';
import { NUMBER_TYPES, type NumberType } from '../../vocabulary/number-types.js';
import type { NumberView } from '../../workspaces/service.js';
import { ConfirmedAction } from '../components.js';
import { BASE, Csrf } from '../layout.js';
import { ErrorNote, PATH, type SettingsData } from './settings-form.js';

export const TYPE_LABELS: Record<NumberType, string> = {
  mobile: 'Mobile',
  landline: 'Landline',
  local_rate: 'Local rate (13, 1300)',
  toll_free: 'Toll-free',
};

const Can: FC<{ yes: boolean; what: string }> = ({ yes, what }) =>
  yes ? (
    <span class="can can-yes">
      <span aria-hidden="true">✓</span> <span class="visually-hidden">{what}: </span>yes
    </span>
  ) : (
    <span class="can can-no">
      <span aria-hidden="true">✗</span> <span class="visually-hidden">{what}: </span>no
    </span>
  );

/** What the workspace cannot send, said plainly where it cannot. */
const Capability: FC<{ numbers: NumberView[] }> = ({ numbers }) => {
  if (numbers.length === 0) {
    return (
      <p class="warning" id="capability">
        This workspace has no number, so nothing can be sent: add a number below. SMS needs a mobile number;
        voice works from any number.
      </p>
    );
  }
  if (!numbers.some((n) => n.type === 'mobile')) {
    return (
      <p class="warning" id="capability">
        SMS needs a mobile number: this workspace has none, so only voice codes can be sent.
      </p>
    );
  }
  return null;
};

/** The options of "sends through": the development provider, then each of the workspace's accounts. */
const CarrierOptions: FC<{
  carriers: CarrierAccountListing[];
  labels: Readonly<Record<string, string>>;
  selected: string;
}> = ({ carriers, labels, selected }) => (
  <>
    <option value="none" selected={selected === 'none' || selected === ''}>
      Development provider (Inbox)
    </option>
    {carriers.map((c) => (
      <option value={c.id} selected={selected === c.id}>
        {`${labels[c.type] ?? c.type} ${c.id}`}
      </option>
    ))}
  </>
);

/** Which account a number sends through, and a form to move it to another (or to the development provider). */
const SendsThrough: FC<{
  number: NumberView;
  carriers: CarrierAccountListing[];
  labels: Readonly<Record<string, string>>;
  csrf: string;
}> = ({ number: n, carriers, labels, csrf }) => {
  const id = `carrier-of-${n.id}`;
  // Nothing to choose from yet: say where its codes go.
  if (carriers.length === 0) return <span class="muted">Development provider (Inbox)</span>;
  return (
    <form method="post" action={`${PATH}/numbers/${encodeURIComponent(n.id)}/carrier`} class="inline-form">
      <Csrf token={csrf} />
      <label class="visually-hidden" for={id}>
        {`${n.number} sends through`}
      </label>
      <select id={id} name="carrier_id">
        <CarrierOptions carriers={carriers} labels={labels} selected={n.carrier_id ?? 'none'} />
      </select>
      <button type="submit" class="secondary outline small-button" aria-label={`Move ${n.number}`}>
        Move
      </button>
    </form>
  );
};

export const NumbersSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'numbers' ? data.failure.values : {};
  const typedType = String(failed.type ?? '');
  return (
    <article id="numbers" aria-labelledby="numbers-title">
      <h2 id="numbers-title">Numbers</h2>
      <p class="muted">
        Codes are sent from these numbers. Voice works from any number; SMS needs a mobile number.
      </p>
      <Capability numbers={data.numbers} />
      <ErrorNote failure={data.failure} section="numbers" />
      {data.numbers.length > 0 && (
        <div class="table-wrap">
          <table class="striped stack-table">
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Country</th>
                <th scope="col">Type</th>
                <th scope="col">Voice</th>
                <th scope="col">SMS</th>
                <th scope="col">Sends through</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.numbers.map((n) => (
                <tr>
                  <td data-label="Number">
                    <code>{n.number}</code>
                  </td>
                  <td data-label="Country">{n.country}</td>
                  <td data-label="Type">{TYPE_LABELS[n.type] ?? n.type}</td>
                  <td data-label="Voice">
                    <Can yes what="Voice" />
                  </td>
                  <td data-label="SMS">
                    <Can yes={n.type === 'mobile'} what="SMS" />
                  </td>
                  <td data-label="Sends through">
                    <SendsThrough
                      number={n}
                      carriers={data.carriers}
                      labels={data.carrierLabels}
                      csrf={csrf}
                    />
                  </td>
                  <td>
                    <ConfirmedAction
                      action={`${PATH}/numbers/${encodeURIComponent(n.id)}/remove`}
                      confirm={`Remove ${n.number}? Codes will no longer be sent from it.`}
                      label="Remove"
                      describe={`Remove ${n.number}`}
                      csrf={csrf}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action={`${PATH}/numbers`} class="add-number">
        <Csrf token={csrf} />
        <h3>Add a number</h3>
        <div class="grid">
          <div>
            <label>
              Number
              <input
                name="number"
                required
                inputmode="tel"
                placeholder="+61491570156"
                value={String(failed.number ?? '')}
                aria-describedby="number-hint"
              />
            </label>
            <small id="number-hint">In international form, starting with +.</small>
          </div>
          <div>
            <label>
              Type
              <select name="type" aria-describedby="type-hint">
                <option value="" selected={typedType === ''}>
                  Detect from the number
                </option>
                {NUMBER_TYPES.map((t) => (
                  <option value={t} selected={typedType === t}>
                    {TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            </label>
            <small id="type-hint">
              US and Canadian numbers need a type: it cannot be told from the number.
            </small>
          </div>
          <div>
            <label>
              Sends through
              <select name="carrier_id" aria-describedby="carrier-hint">
                <CarrierOptions
                  carriers={data.carriers}
                  labels={data.carrierLabels}
                  selected={String(failed.carrier_id ?? '')}
                />
              </select>
            </label>
            <small id="carrier-hint">
              Codes reach real phones through a carrier account (add one under{' '}
              <a href={`${BASE}/carriers`}>Carriers</a>); the development provider keeps them in the Inbox.
            </small>
          </div>
        </div>
        <button type="submit">Add number</button>
      </form>
    </article>
  );
};
