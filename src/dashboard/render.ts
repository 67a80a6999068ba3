// Sends a page: the JSX rendered to a string (escaped by hono/jsx) inside the shared layout context.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { PageContext } from './layout.js';
import { type Flash, takeFlash } from './session-cookie.js';

/** A page body: given the page context, the whole document (a Layout). */
export type Page = (ctx: PageContext) => HtmlEscapedString | Promise<HtmlEscapedString>;

export async function renderPage(
  request: FastifyRequest,
  reply: FastifyReply,
  page: Page,
  options: { status?: number; flash?: Flash } = {},
): Promise<FastifyReply> {
  const ctx: PageContext = {
    session: request.session,
    csrf: reply.generateCsrf(),
    path: request.url.split('?')[0] ?? request.url,
    flash: options.flash ?? takeFlash(request.cookies, reply),
    carrierless: request.carrierless,
  };
  const html = String(await page(ctx));
  return reply
    .code(options.status ?? 200)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${html}`);
}
