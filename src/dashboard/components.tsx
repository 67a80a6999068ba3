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
