// The status callback URL an operator sees for an account (CLI list, dashboard): where that carrier's signed
// status callbacks are answered. SMPP has none: its delivery receipts come over the SMPP session itself.
import { statusCallbackUrl } from './router.js';

export function callbackUrlOf(publicUrl: string, account: { id: string; type: string }): string | null {
  return account.type === 'smpp' ? null : statusCallbackUrl(publicUrl, account);
}
