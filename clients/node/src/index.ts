// @phone-verify/client: the typed Node.js client of phone-verify (README.md).
export { PhoneVerify, type PhoneVerifyOptions, type SendOptions } from './client.js';
export {
  type ClientErrorCode,
  PhoneVerifyApiError,
  PhoneVerifyConnectionError,
  PhoneVerifyError,
  PhoneVerifyTimeoutError,
  type WebhookErrorCode,
  WebhookVerificationError,
} from './errors.js';
export type { paths, webhooks } from './generated/openapi.js';
export { VERSION } from './generated/version.js';
export type { CallOptions } from './http.js';
export type * from './types.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './webhooks.js';
