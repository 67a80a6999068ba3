// First-run set-up, sign-in and sign-out, and the workspace switch.
import type { FastifyInstance } from 'fastify';
import { PASSWORD_MIN } from '../../accounts/password.js';
import { EMAIL_MAX } from '../../accounts/service.js';
import { AppError } from '../../errors.js';
import type { Services } from '../../services.js';
import { type FormBody, field, formError } from '../forms.js';
import { BASE, Csrf, Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { sessionOf } from '../session.js';
import { clearSessionCookie, setFlash, setSessionCookie } from '../session-cookie.js';

/** Only paths inside the dashboard are followed after sign-in (no open redirect). */
function safeNext(next: string | undefined): string {
  return next && /^\/dashboard(\/[\w\-/.]*)?(\?[\w\-=&%.]*)?$/.test(next) ? next : BASE;
}

function SetupPage(values: { email?: string; workspace?: string }, error?: string): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Set up phone-verify">
      <article class="narrow">
        <hgroup>
          <h1>Welcome to phone-verify</h1>
          <p>
            Create the first account and its workspace. This page is shown once, before anyone has an account.
          </p>
        </hgroup>
        {error && (
          <p class="flash flash-error" role="alert">
            {error}
          </p>
        )}
        <form method="post" action={`${BASE}/setup`}>
          <Csrf token={ctx.csrf} />
          <label>
            Workspace name
            <input
              name="workspace_name"
              required
              maxlength={60}
              value={values.workspace ?? ''}
              aria-describedby="workspace-name-hint"
            />
          </label>
          <small id="workspace-name-hint">
            Your product's name: it is the brand spoken and written in every code message.
          </small>
          <label>
            E-mail
            <input
              type="email"
              name="email"
              autocomplete="username"
              required
              maxlength={EMAIL_MAX}
              value={values.email ?? ''}
            />
          </label>
          <label>
            Password
            <input
              type="password"
              name="password"
              autocomplete="new-password"
              required
              minlength={PASSWORD_MIN}
              aria-describedby="password-hint"
            />
          </label>
          <small id="password-hint">At least {PASSWORD_MIN} characters.</small>
          <button type="submit">Create account and workspace</button>
        </form>
      </article>
    </Layout>
  );
}

function SignInPage(values: { email?: string; next?: string }, error?: string): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Sign in">
      <article class="narrow">
        <h1>Sign in</h1>
        {error && (
          <p class="flash flash-error" role="alert">
            {error}
          </p>
        )}
        <form method="post" action={`${BASE}/signin`}>
          <Csrf token={ctx.csrf} />
          <input type="hidden" name="next" value={safeNext(values.next)} />
          <label>
            E-mail
            <input
              type="email"
              name="email"
              autocomplete="username"
              required
              maxlength={EMAIL_MAX}
              value={values.email ?? ''}
            />
          </label>
          <label>
            Password
            <input type="password" name="password" autocomplete="current-password" required />
          </label>
          <button type="submit">Sign in</button>
        </form>
      </article>
    </Layout>
  );
}

export function registerAuthPages(
  app: FastifyInstance,
  services: Pick<Services, 'accounts'>,
  options: { secureCookies: boolean },
) {
  const { accounts } = services;
  const config = { public: true };

  app.get('/setup', { config }, async (request, reply) => {
    if (!(await accounts.needsSetup())) return reply.redirect(`${BASE}/signin`);
    return renderPage(request, reply, SetupPage({}));
  });

  app.post('/setup', { config }, async (request, reply) => {
    // Once anyone has an account, set-up is closed: nothing is created, the visitor is sent to sign in.
    if (!(await accounts.needsSetup())) return reply.redirect(`${BASE}/signin`);
    const body = request.body as FormBody;
    const values = { email: field(body, 'email'), workspace: field(body, 'workspace_name') };
    try {
      const { token } = await accounts.setup({
        email: values.email,
        password: field(body, 'password'),
        workspaceName: values.workspace,
        address: request.ip,
      });
      setSessionCookie(reply, token, options.secureCookies);
      setFlash(reply, { kind: 'ok', text: 'Your workspace is ready. Add a number, then create an API key.' });
      return reply.redirect(`${BASE}/settings`);
    } catch (err) {
      const status = formError(err);
      return renderPage(request, reply, SetupPage(values, (err as Error).message), { status });
    }
  });

  app.get('/signin', { config }, async (request, reply) => {
    if (await accounts.needsSetup()) return reply.redirect(`${BASE}/setup`);
    if (request.session) return reply.redirect(BASE);
    const next = (request.query as Record<string, string | undefined>).next;
    return renderPage(request, reply, SignInPage({ next }));
  });

  app.post('/signin', { config }, async (request, reply) => {
    const body = request.body as FormBody;
    const values = { email: field(body, 'email'), next: field(body, 'next') };
    try {
      const { token } = await accounts.signIn({
        email: values.email,
        password: field(body, 'password'),
        address: request.ip,
      });
      setSessionCookie(reply, token, options.secureCookies);
      return reply.redirect(safeNext(values.next));
    } catch (err) {
      const status = formError(err);
      if (err instanceof AppError && err.extras.retry_after !== undefined) {
        reply.header('retry-after', String(err.extras.retry_after));
      }
      return renderPage(request, reply, SignInPage(values, (err as Error).message), { status });
    }
  });

  app.post('/signout', async (request, reply) => {
    await accounts.signOut(sessionOf(request));
    clearSessionCookie(reply);
    return reply.redirect(`${BASE}/signin`);
  });

  app.post('/workspace', async (request, reply) => {
    await accounts.selectWorkspace(sessionOf(request), field(request.body as FormBody, 'workspace_id'));
    return reply.redirect(BASE);
  });
}
