// Scopes a key may hold, and which one each part of the API needs.
export const SCOPES = ['otp'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return SCOPES.includes(value as Scope);
}
