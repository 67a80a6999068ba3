// The web console under /dashboard. Everything here is encapsulated: its cookies, CSRF protection, form bodies
// and Content-Security-Policy apply to these routes only, and nothing here reads API keys; the /v1 API reads
// nothing but API keys. A session therefore never grants /v1, and an API key never grants the dashboard.

import { join } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { isAbandonedRequest } from '../http/connections.js';
import { PACKAGE_ROOT } from '../package-root.js';
import type { Services } from '../services.js';
import { isDatabaseUnavailable } from '../store/unavailable.js';
import { ErrorPage } from './error-page.js';
import { BASE } from './layout.js';
import { registerAuthPages } from './pages/auth.js';
import { registerPages } from './pages/index.js';
import { renderPage } from './render.js';
import { SESSION_COOKIE } from './session-cookie.js';

export interface DashboardOptions {
  services: Services;
  /** Cookies carry Secure when the service is reached over HTTPS (PUBLIC_URL https://…). */
  secureCookies: boolean;
  /** NODE_ENV=production: every page warns while the workspace has numbers without a carrier. */
  production: boolean;
}

export async function dashboard(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { services } = options;
  // The console is not part of the public API description. Its queries are filters, read tolerantly (issue 10:
  // whatever is typed in a search box is shown back, never a 400); its paths and forms keep the rule for text.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
    route.config = { ...route.config, tolerantQuery: true };
  });
  // Defaults for every cookie set or cleared here (session, CSRF secret, flash): clearing one must repeat
  // the attributes it was set with, or a browser may keep the Secure original.
  await app.register(fastifyCookie, {
    parseOptions: { path: BASE, httpOnly: true, sameSite: 'lax', secure: options.secureCookies },
  });
  await app.register(fastifyFormbody, { bodyLimit: 16 * 1024 });
  await app.register(fastifyCsrf, {
    cookieKey: 'pv_csrf',
    cookieOpts: { path: BASE, httpOnly: true, sameSite: 'lax', secure: options.secureCookies, signed: false },
    getToken: (request) => (request.body as Record<string, string> | undefined)?._csrf,
  });
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        fontSrc: ["'self'"],
        // Plain-HTTP installs (a private network, development) must keep working.
        upgradeInsecureRequests: options.secureCookies ? [] : null,
      },
    },
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(fastifyStatic, {
    root: [join(PACKAGE_ROOT, 'public/dashboard'), join(PACKAGE_ROOT, 'node_modules/@picocss/pico/css')],
    prefix: '/assets/',
    decorateReply: false,
    index: false,
    allowedPath: (path) => /^\/[\w.-]+\.(css|js|svg|png)$/.test(path),
  });

  app.decorateRequest('session', undefined);
  app.decorateRequest('carrierless', 0);

  // Every form that changes something carries the CSRF token (double-submit: cookie secret + form token).
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    app.csrfProtection(request, reply, done);
  });

  // Who is signed in; pages other than set-up and sign-in need someone.
  app.addHook('preHandler', async (request, reply) => {
    if (request.url.startsWith(`${BASE}/assets/`)) return;
    request.session = await services.accounts.resolveSession(request.cookies[SESSION_COOKIE]);
    const workspace = request.session?.workspace;
    if (options.production && workspace) {
      request.carrierless = (await services.workspaces.numbersWithoutCarrier(workspace.id)).length;
    }
    if (request.session || request.routeOptions.config.public) return;
    if (await services.accounts.needsSetup()) return reply.redirect(`${BASE}/setup`);
    const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
    return reply.redirect(`${BASE}/signin${next}`);
  });

  app.setErrorHandler(async (error: Error & { statusCode?: number }, request, reply) => {
    const unavailable = !isAbandonedRequest(error, request) && isDatabaseUnavailable(error);
    const status = error instanceof AppError ? error.status : unavailable ? 503 : (error.statusCode ?? 500);
    if (unavailable) {
      request.log.warn({ err: error }, 'dashboard request refused: the database is unavailable');
      reply.header('retry-after', '5');
    } else if (status >= 500) request.log.error({ err: error }, 'dashboard request failed');
    const message =
      error instanceof AppError
        ? error.message
        : unavailable
          ? 'The database is unreachable or busy. Try again in a few seconds.'
          : status === 403
            ? 'The form expired or did not come from this page. Go back, reload and try again.'
            : status < 500
              ? 'The request could not be processed.'
              : 'Something went wrong on our side.';
    return renderPage(request, reply, ErrorPage({ status, message }), { status });
  });
  app.setNotFoundHandler(async (request, reply) =>
    renderPage(request, reply, ErrorPage({ status: 404, message: 'There is no such page.' }), {
      status: 404,
    }),
  );

  registerAuthPages(app, services, options);
  registerPages(app, services);
}
