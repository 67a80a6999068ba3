// The settings page's test numbers section (docs/dashboard.md, "Test numbers"): a workspace's numbers with a fixed
// code, which only its test keys use, listed with their codes, added and removed here (or with `test-number …`).
import type { FC } from 'hono/jsx';
import { MAX_TEST_NUMBERS } from '../../workspaces/test-numbers.js';
import { ConfirmedAction } from '../components.js';
import { BASE, Csrf } from '../layout.js';
import { ErrorNote, PATH, type SettingsData } from './settings-form.js';

export const TestNumbersSection: FC<{ data: SettingsData; csrf: string }> = ({ data, csrf }) => {
  const failed = data.failure?.section === 'test-numbers' ? data.failure.values : {};
  const full = data.testNumbers.length >= MAX_TEST_NUMBERS;
  return (
    <article id="test-numbers" aria-labelledby="test-numbers-title">
      <h2 id="test-numbers-title">Test numbers</h2>
      <p class="muted">
        A send with a <a href={`${BASE}/settings/security/api-keys`}>test key</a> (pv_test_…) to one of these
        numbers gets its fixed code, so your end-to-end tests can check it without reading the inbox. Live
        keys send to them like to any number. At most {MAX_TEST_NUMBERS}.
      </p>
      <ErrorNote failure={data.failure} section="test-numbers" />
      {data.testNumbers.length > 0 && (
        <div class="table-wrap">
          <table class="striped stack-table">
            <thead>
              <tr>
                <th scope="col">Test number</th>
                <th scope="col">Code</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.testNumbers.map((n) => (
                <tr>
                  <td data-label="Test number">
                    <code>{n.phone}</code>
                  </td>
                  <td data-label="Code">
                    <code>{n.code}</code>
                  </td>
                  <td>
                    <ConfirmedAction
                      action={`${PATH}/test-numbers/remove?phone=${encodeURIComponent(n.phone)}`}
                      confirm={`Remove the test number ${n.phone}? Test keys then send to it like to any number.`}
                      label="Remove"
                      describe={`Remove test number ${n.phone}`}
                      csrf={csrf}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form method="post" action={`${PATH}/test-numbers`} class="add-test-number">
        <Csrf token={csrf} />
        <h3>Add a test number</h3>
        <fieldset disabled={full}>
          <div class="grid">
            <label>
              Test number
              <input
                name="phone"
                required
                inputmode="tel"
                maxlength={64}
                placeholder="+61491570123"
                value={String(failed.phone ?? '')}
              />
            </label>
            <label>
              Fixed code
              <input
                name="code"
                required
                inputmode="numeric"
                pattern="[0-9]{4,8}"
                maxlength={8}
                placeholder="123456"
                value={String(failed.code ?? '')}
                aria-describedby="test-code-hint"
              />
            </label>
          </div>
          <small id="test-code-hint">4 to 8 digits. It is not secret: only test keys ever get it.</small>
          <button type="submit">Add test number</button>
        </fieldset>
      </form>
    </article>
  );
};
