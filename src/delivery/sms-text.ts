// The SMS: carries the brand and ends in the code, so phones can offer to fill it in.
export function smsText(brandName: string, code: string): string {
  return `${brandName}: do not share this code with anyone. Your verification code is ${code}`;
}
