// Every signed-in page of the dashboard.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import { registerApiKeyPages } from './api-keys.js';
import { registerAuditPage } from './audit.js';
import { registerCarrierPages } from './carriers.js';
import { registerFraudPages } from './fraud.js';
import { registerInboxPages } from './inbox.js';
import { registerOverviewPage } from './overview.js';
import { registerSettingsPages } from './settings.js';
import { registerVerificationPages } from './verifications.js';
import { registerWebhookPages } from './webhooks.js';

export function registerPages(app: FastifyInstance, services: Services): void {
  registerOverviewPage(app, services);
  registerVerificationPages(app, services);
  registerInboxPages(app, services);
  registerSettingsPages(app, services);
  registerCarrierPages(app, services);
  registerApiKeyPages(app, services);
  registerFraudPages(app, services);
  registerWebhookPages(app, services);
  registerAuditPage(app, services);
}
