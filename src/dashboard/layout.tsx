// The page frame every dashboard page shares: header, navigation, workspace switcher, sign-out, flash message.
// hono/jsx escapes every interpolated value, so pages never build HTML by string concatenation.
import type { Child, FC } from 'hono/jsx';
import type { SessionContext } from '../accounts/service.js';

export const BASE = '/dashboard';

export interface PageContext {
  session: SessionContext | undefined;
  csrf: string;
  /** The path of the page, to mark the current navigation entry. */
  path: string;
  flash?: { kind: 'ok' | 'error'; text: string };
  /** Production only: numbers of the workspace without a carrier (0 otherwise). */
  carrierless?: number;
}

const NAV = [
  { href: `${BASE}`, label: 'Overview' },
  { href: `${BASE}/verifications`, label: 'Verifications' },
  { href: `${BASE}/inbox`, label: 'Inbox' },
  { href: `${BASE}/settings`, label: 'Workspace' },
  { href: `${BASE}/carriers`, label: 'Carriers' },
  { href: `${BASE}/fraud`, label: 'Fraud' },
  { href: `${BASE}/webhooks`, label: 'Webhooks' },
  { href: `${BASE}/settings/security/api-keys`, label: 'API keys' },
  { href: `${BASE}/audit`, label: 'Audit log' },
];

/** A hidden CSRF field: every form that changes something carries one. */
export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token} />;

/** The navigation entry of a path: the longest link it lies under (API keys lies under Workspace too). */
function currentNav(path: string): string | undefined {
  const under = NAV.filter((item) => path === item.href || path.startsWith(`${item.href}/`));
  return under.sort((a, b) => b.href.length - a.href.length)[0]?.href;
}

const Header: FC<{ ctx: PageContext }> = ({ ctx }) => {
  const session = ctx.session;
  const current = currentNav(ctx.path);
  return (
    <header class="container">
      <nav aria-label="Main">
        <ul>
          <li>
            <a href={BASE} class="brand">
              <strong>phone-verify</strong>
            </a>
          </li>
        </ul>
        {session && (
          <ul class="nav-links">
            {NAV.map((item) => (
              <li>
                <a href={item.href} aria-current={item.href === current ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        )}
        {session && (
          <ul class="nav-account">
            {session.workspaces.length > 1 && session.workspace && (
              <li>
                <form method="post" action={`${BASE}/workspace`} class="inline-form">
                  <Csrf token={ctx.csrf} />
                  <label class="visually-hidden" for="workspace-switch">
                    Workspace
                  </label>
                  <select id="workspace-switch" name="workspace_id" data-autosubmit>
                    {session.workspaces.map((w) => (
                      <option value={w.id} selected={w.id === session.workspace?.id}>
                        {w.name}
                      </option>
                    ))}
                  </select>
                  <noscript>
                    <button type="submit">Switch</button>
                  </noscript>
                </form>
              </li>
            )}
            <li class="muted small account-email">{session.user.email}</li>
            <li>
              <form method="post" action={`${BASE}/signout`} class="inline-form">
                <Csrf token={ctx.csrf} />
                <button
                  type="submit"
                  class="secondary outline small-button"
                  title={`Signed in as ${session.user.email}`}
                >
                  Sign out
                </button>
              </form>
            </li>
          </ul>
        )}
      </nav>
    </header>
  );
};

export const Layout: FC<{ ctx: PageContext; title: string; children?: Child }> = ({
  ctx,
  title,
  children,
}) => (
  <html lang="en" data-theme="light">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} · phone-verify`}</title>
      <link rel="icon" type="image/svg+xml" href={`${BASE}/assets/favicon.svg`} />
      <link rel="stylesheet" href={`${BASE}/assets/pico.min.css`} />
      <link rel="stylesheet" href={`${BASE}/assets/dashboard.css`} />
      <script src={`${BASE}/assets/dashboard.js`} defer />
    </head>
    <body>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header ctx={ctx} />
      <main class="container" id="main">
        {ctx.carrierless ? (
          <p class="flash flash-error production-warning" role="alert">
            <strong>Codes from this workspace may reach no phone.</strong> This server runs in production, and{' '}
            {ctx.carrierless === 1 ? 'one of its numbers has' : `${ctx.carrierless} of its numbers have`} no
            carrier account: codes sent from {ctx.carrierless === 1 ? 'it' : 'them'} go to the development
            inbox. Add an account under <a href={`${BASE}/carriers`}>Carriers</a>, then choose it for each
            number on the <a href={`${BASE}/settings#numbers`}>Workspace</a> page (or use{' '}
            <code>phone-verify number set-carrier</code>).
          </p>
        ) : null}
        {ctx.flash && (
          <p class={`flash flash-${ctx.flash.kind}`} role={ctx.flash.kind === 'error' ? 'alert' : 'status'}>
            {ctx.flash.text}
          </p>
        )}
        {children}
      </main>
      <footer class="container muted small">
        <a href="/docs">API reference</a> · <a href="/openapi.json">OpenAPI</a>
      </footer>
    </body>
  </html>
);
