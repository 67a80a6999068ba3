// A signed-in browser, simulated over app.inject(): keeps cookies, reads the CSRF token from the page's forms
// and sends forms as a browser would (application/x-www-form-urlencoded).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { OPERATOR } from '../../src/audit/actor.js';
import type { Services } from '../../src/services.js';

export const PASSWORD = 'correct horse battery';

export interface DashboardClient {
  get(path: string): Promise<LightMyRequestResponse>;
  /** Posts a form; the CSRF token is taken from the last page fetched (or fetched from `from`). */
  post(
    path: string,
    form: Record<string, string | string[]>,
    options?: { from?: string; csrf?: string | null },
  ): Promise<LightMyRequestResponse>;
  cookies: Map<string, string>;
  csrf(): string;
}

function csrfOf(html: string): string | undefined {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
}

/** `remoteAddress`: the client address the requests come from (app.inject's default is 127.0.0.1). */
export function dashboardClient(
  app: FastifyInstance,
  options: { remoteAddress?: string } = {},
): DashboardClient {
  const { remoteAddress } = options;
  const cookies = new Map<string, string>();
  let lastCsrf = '';
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const keep = (res: LightMyRequestResponse) => {
    for (const c of res.cookies) {
      if (
        c.value === '' ||
        (c.maxAge !== undefined && c.maxAge <= 0) ||
        (c.expires && c.expires.getTime() < Date.now())
      ) {
        cookies.delete(c.name);
      } else cookies.set(c.name, c.value);
    }
    const token = csrfOf(res.body);
    if (token) lastCsrf = token;
    return res;
  };
  const client: DashboardClient = {
    cookies,
    csrf: () => lastCsrf,
    async get(path) {
      return keep(
        await app.inject({ method: 'GET', url: path, headers: { cookie: cookieHeader() }, remoteAddress }),
      );
    },
    async post(path, form, options = {}) {
      if (options.from) await client.get(options.from);
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(form))
        for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
      const csrf = options.csrf === undefined ? lastCsrf : options.csrf;
      if (csrf !== null) body.append('_csrf', csrf);
      return keep(
        await app.inject({
          method: 'POST',
          url: path,
          headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
          payload: body.toString(),
          remoteAddress,
        }),
      );
    },
  };
  return client;
}

/** An account that belongs to `workspaceId`, signed in: a client holding its session. */
export async function signedIn(
  app: FastifyInstance,
  services: Services,
  options: { email?: string; workspaceIds: string[] },
): Promise<DashboardClient> {
  const email = options.email ?? `user-${Math.random().toString(36).slice(2)}@example.com`;
  await services.accounts.createAccount(
    { email, password: PASSWORD, workspaceIds: options.workspaceIds },
    OPERATOR,
  );
  const client = dashboardClient(app);
  const res = await client.post(
    '/dashboard/signin',
    { email, password: PASSWORD, next: '/dashboard' },
    {
      from: '/dashboard/signin',
    },
  );
  if (res.statusCode !== 302) throw new Error(`sign-in failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return client;
}
