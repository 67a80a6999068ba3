// What a timeline event can say happened: one list for the table type and the timeline.
export const EVENT_KINDS = [
  'created',
  'handed_over',
  'retry_scheduled',
  'gave_up',
  'rejected',
  'delivery_failed',
  'attempt',
  'verified',
  'failed',
  'expired',
  'canceled',
  'superseded',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];
