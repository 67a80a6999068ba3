// The API reference at /docs (Swagger UI) and its errors reference at /docs/errors. They get the dashboard's security headers, adjusted for what Swagger
// UI loads: its scripts, styles and images from this origin (its SVG icons as data: URIs), its logo's one inline
// style, the document from /docs/json, and the "Try it out" requests sent to PUBLIC_URL. No inline script, no
// eval, no framing. The helmet registered here applies to these routes alone: the API's answers stay as they are.
import fastifyHelmet from '@fastify/helmet';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { errorsPageRoute } from './errors-page.js';

/**
 * The one inline style Swagger UI needs: the <style> inside its logo (an SVG drawn by its top bar,
 * `.logo_small_svg__cls-2{fill:#fff}…`), allowed by its hash rather than by 'unsafe-inline'. Another version
 * of swagger-ui may change it: the browser test (test/browser/api-docs.browser.test.ts) then reports the
 * violation and the hash the browser wants.
 */
const SWAGGER_LOGO_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

export interface ApiDocsOptions {
  /** PUBLIC_URL: the server the reference's requests go to. */
  publicUrl: string;
}

export async function apiDocs(app: FastifyInstance, options: ApiDocsOptions): Promise<void> {
  const https = options.publicUrl.startsWith('https://');
  await app.register(fastifyHelmet, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", SWAGGER_LOGO_STYLE],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'", new URL(options.publicUrl).origin],
        objectSrc: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        // Plain-HTTP installs (a private network, development) must keep working.
        upgradeInsecureRequests: https ? [] : null,
      },
    },
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // No validator badge: it would send the document to validator.swagger.io.
    uiConfig: { deepLinking: true, validatorUrl: null },
  });
  errorsPageRoute(app);
}
