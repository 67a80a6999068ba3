// The countries served: one list for the table types, the phone parser, the API schemas and workspace settings.
export const SUPPORTED_COUNTRIES = ['AU', 'US', 'CA', 'GB', 'NZ'] as const;
export type Country = (typeof SUPPORTED_COUNTRIES)[number];
