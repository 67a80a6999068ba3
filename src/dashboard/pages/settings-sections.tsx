// The settings page's name, destination countries and limits sections.
import type { FC } from 'hono/jsx';
import { type Country, SUPPORTED_COUNTRIES } from '../../vocabulary/countries.js';
import { BRAND_NAME_MAX } from '../../workspaces/brand-name.js';
import { LIMIT_RANGES, type LimitName } from '../../workspaces/service.js';
import { Csrf } from '../layout.js';
import { ErrorNote, fmt, PATH, type SettingsData } from './settings-form.js';

export const COUNTRY_NAMES: Record<Country, string> = {
  AU: 'Australia',
  US: 'United States',
  CA: 'Canada',
  GB: 'United Kingdom',
  NZ: 'New Zealand',
};

export const LIMIT_FIELDS: { name: LimitName; label: string; hint: string }[] = [
  { name: 'send_limit', label: 'Codes per number', hint: 'How many codes one phone number may be sent' },
  { name: 'send_window_seconds', label: 'Window (seconds)', hint: '…within this many seconds' },
  {
    name: 'guess_limit',
    label: 'Failed checks per number',
    hint: 'Wrong codes one phone number may be checked with, over all its codes; then its checks and sends are refused',
  },
  {
    name: 'guess_window_seconds',
    label: 'Failed-check window (seconds)',
    hint: '…within any span of this many seconds',
  },
  {
    name: 'request_limit_per_minute',
    label: 'API requests per minute',
    hint: 'For the whole workspace, all keys together',
  },
];

export const NameSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const typed =
    data.failure?.section === 'name' ? String(data.failure.values.name ?? '') : data.settings.name;
  return (
    <article id="name" aria-labelledby="name-title">
      <h2 id="name-title">Name</h2>
      <ErrorNote failure={data.failure} section="name" />
      <form method="post" action={`${PATH}/name`}>
        <Csrf token={csrf} />
        <label>
          Workspace name
          <input name="name" required maxlength={BRAND_NAME_MAX} value={typed} aria-describedby="name-hint" />
        </label>
        <small id="name-hint">
          The brand in every code message (“Your {data.settings.name} code is …”) unless a request gives{' '}
          <code>brand_name</code>. Plain text: no links, domains or e-mail addresses.
        </small>
        <button type="submit">Save name</button>
      </form>
    </article>
  );
};

export const CountriesSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'countries';
  const chosen = failed ? (data.failure?.values.countries as string[]) : data.settings.allowed_countries;
  return (
    <article id="countries" aria-labelledby="countries-title">
      <h2 id="countries-title">Destination countries</h2>
      <ErrorNote failure={data.failure} section="countries" />
      <form method="post" action={`${PATH}/countries`}>
        <Csrf token={csrf} />
        <fieldset>
          <legend>Codes may be sent to numbers of</legend>
          {SUPPORTED_COUNTRIES.map((c) => (
            <label>
              <input type="checkbox" name="countries" value={c} checked={chosen.includes(c)} />
              {COUNTRY_NAMES[c]} <span class="muted small">({c})</span>
            </label>
          ))}
          <small>Sends to any other country are refused with unsupported_country. Choose at least one.</small>
        </fieldset>
        <button type="submit">Save countries</button>
      </form>
    </article>
  );
};

export const LimitsSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'limits' ? data.failure.values : undefined;
  return (
    <article id="limits" aria-labelledby="limits-title">
      <h2 id="limits-title">Limits</h2>
      <ErrorNote failure={data.failure} section="limits" />
      <form method="post" action={`${PATH}/limits`}>
        <Csrf token={csrf} />
        {LIMIT_FIELDS.map((f) => {
          const range = LIMIT_RANGES[f.name];
          return (
            <div>
              <label>
                {f.label}
                <input
                  type="number"
                  name={f.name}
                  required
                  min={range.min}
                  max={range.max}
                  step={1}
                  value={failed ? String(failed[f.name] ?? '') : String(data.settings.limits[f.name])}
                  aria-describedby={`${f.name}-hint`}
                />
              </label>
              <small id={`${f.name}-hint`}>{`${f.hint} (${fmt(range.min)} to ${fmt(range.max)}).`}</small>
            </div>
          );
        })}
        <button type="submit">Save limits</button>
      </form>
    </article>
  );
};
