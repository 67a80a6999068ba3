// The status callback URL an operator sees for an account (CLI list, dashboard): where that carrier's signed
// status callbacks are answered. SMPP has none: its delivery receipts come over the SMPP session itself.
/** Where the carrier posts status callbacks for one account (the webhook routes answer there). */
export function statusCallbackUrl(publicUrl: string, account: { id: string; type: string }): string {
  return `${publicUrl.replace(/\/+$/, '')}/webhooks/${account.type}/${account.id}`;
}

export function callbackUrlOf(publicUrl: string, account: { id: string; type: string }): string | null {
  return account.type === 'smpp' ? null : statusCallbackUrl(publicUrl, account);
}
