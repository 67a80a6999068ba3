// The event types a webhook endpoint can receive (docs/webhooks.md): one per state change of a verification.
export const WEBHOOK_EVENT_TYPES = [
  'verification.created',
  'verification.delivery_updated',
  'verification.verified',
  'verification.failed',
  'verification.expired',
  'verification.undelivered',
  'verification.canceled',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
