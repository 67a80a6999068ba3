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
