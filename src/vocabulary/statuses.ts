// A verification's statuses: the one list the table type, the API schemas and the dashboard filter derive from.
export const STATUSES = ['pending', 'verified', 'expired', 'failed', 'undelivered', 'canceled'] as const;
export type Status = (typeof STATUSES)[number];
