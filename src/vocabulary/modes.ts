// The two modes of an API key and of everything it makes (docs/api.md, "Test mode"): live keys reach carriers,
// test keys never do. The one list the table types, the key format, the schemas and the dashboard's toggle use.
export const MODES = ['live', 'test'] as const;
export type Mode = (typeof MODES)[number];

export function isMode(value: string): value is Mode {
  return (MODES as readonly string[]).includes(value);
}

/** The dashboard's "Test data" toggle: `mode=test` in a page's query asks for test data; anything else is live. */
export function modeOfQuery(query: Record<string, unknown> | undefined): Mode {
  return query?.mode === 'test' ? 'test' : 'live';
}
