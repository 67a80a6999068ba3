// Small pieces several dashboard pages share.
import type { FC } from 'hono/jsx';
import { Csrf } from './layout.js';

/** A one-button form for a destructive action, confirmed in the browser first (dashboard.js: data-confirm). */
export const ConfirmedAction: FC<{
  action: string;
  confirm: string;
  label: string;
  describe: string;
  csrf: string;
}> = (props) => (
  <form method="post" action={props.action} class="inline-form" data-confirm={props.confirm}>
    <Csrf token={props.csrf} />
    <button type="submit" class="secondary outline small-button" aria-label={props.describe}>
      {props.label}
    </button>
  </form>
);

/**
 * The pager under a newest-first list: back to the newest page when this is an older one (`newest`), and on to
 * the older entries when there are any (`older`). Either link is left out when it has nowhere to go, and the pager
 * with it when both are.
 */
export const Pager: FC<{ newest: string | undefined; older: string | undefined }> = ({ newest, older }) =>
  newest === undefined && older === undefined ? null : (
    <nav aria-label="Pages" class="pager">
      <ul>{newest && <li>{<a href={newest}>« Newest</a>}</li>}</ul>
      <ul>
        {older && (
          <li>
            <a href={older} rel="next">
              Older »
            </a>
          </li>
        )}
      </ul>
    </nav>
  );

/**
 * The "Test data" toggle of the log, the overview and the inbox: live data unless asked (`mode=test` in the query),
 * a link to the other side that keeps the page's other parameters, and while on, a banner that says so.
 */
export const TestDataToggle: FC<{ test: boolean; href: (test: boolean) => string }> = ({ test, href }) => (
  <>
    <p class="test-data-toggle">
      <a
        href={href(!test)}
        role="switch"
        aria-checked={test ? 'true' : 'false'}
        title={test ? 'Show live data' : 'Show the data of test keys (pv_test_…)'}
      >
        {test ? 'Test data: on' : 'Test data: off'}
      </a>
    </p>
    {test && (
      <p class="test-data-banner" role="status">
        Showing <strong>test data</strong>: what test keys (pv_test_…) did. No test code reached a carrier.
      </p>
    )}
  </>
);

/** The query string `params` with `mode=test` when `test` (and without any mode otherwise). */
export function withMode(params: URLSearchParams, test: boolean): string {
  const copy = new URLSearchParams(params);
  copy.delete('mode');
  if (test) copy.set('mode', 'test');
  const qs = copy.toString();
  return qs ? `?${qs}` : '';
}
