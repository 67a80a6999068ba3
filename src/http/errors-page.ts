// GET /docs/errors: the errors reference, one section per code of the catalogue (`id=<code>`): its status, title,
// what it means and what to do. Every problem's `type` is the URL of its code's section (problem.ts), so a
// developer who meets an error follows its `type` here. Built once at start-up from the catalogue.
import type { FastifyInstance } from 'fastify';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { ERROR_REFERENCE } from '../error-reference.js';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors.js';

export const ERRORS_PAGE_PATH = '/docs/errors';

/** The reference's words are Markdown-light: `code` spans only. Everything else of them is text, escaped. */
function prose(text: string): HtmlEscapedString {
  const parts = text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : html`${part}`));
  return raw(parts.join(''));
}

function section(code: ErrorCode) {
  const { status, title } = ERROR_CATALOGUE[code];
  const { meaning, action } = ERROR_REFERENCE[code];
  return html`<section id="${code}">
<h2><code>${code}</code></h2>
<p><strong>${status}</strong> ${title}</p>
<p>${prose(meaning)}</p>
<p><strong>What to do:</strong> ${prose(action)}</p>
</section>`;
}

export function errorsPage(): string {
  const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
  const index = codes.map(
    (code) => html`<li><a href="#${code}"><code>${code}</code></a> (${ERROR_CATALOGUE[code].status})</li>`,
  );
  return String(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Errors: phone-verify API</title>
<link rel="stylesheet" href="/dashboard/assets/pico.min.css">
</head>
<body>
<main class="container">
<h1>Errors</h1>
<p>Every error of the API is an RFC 9457 problem (<code>application/problem+json</code>): <code>type</code> is the
address of its code's section below, <code>title</code> the code's title, <code>status</code> the HTTP status,
<code>detail</code> this occurrence in words (do not parse it), <code>code</code> the stable identifier to branch on,
and <code>request_id</code> what the service's logs know the request by. Some codes carry more:
<code>errors</code> (the fields at fault), <code>reason</code> and <code>retry_after</code> (with a
<code>Retry-After</code> header). The <a href="/docs">API reference</a> lists the codes each operation may answer.</p>
<nav><ul>
${raw(index.join('\n'))}
</ul></nav>
${raw(codes.map(section).join('\n'))}
</main>
</body>
</html>
`);
}

/** Registers the page on the API reference's plugin, so it gets the reference's security headers. */
export function errorsPageRoute(app: FastifyInstance): void {
  const page = errorsPage();
  app.get(ERRORS_PAGE_PATH, { schema: { hide: true } }, (_request, reply) => {
    reply.type('text/html; charset=utf-8').send(page);
  });
}
