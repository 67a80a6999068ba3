// What a person is told when something goes wrong, from the client's typed errors (branch on `code`, never on the
// service's `detail`) and from a check's result.
import { type CheckResult, PhoneVerifyError } from '@phone-verify/client';

export interface Shown {
  status: number;
  message: string;
}

function waitText(seconds: number | undefined): string {
  if (seconds === undefined) return 'Please wait a little and try again.';
  return seconds < 90
    ? `Try again in ${seconds} seconds.`
    : `Try again in ${Math.ceil(seconds / 60)} minutes.`;
}

/** The send failed: why, in words for the person who typed the number. */
export function sendFailure(error: unknown): Shown {
  if (!(error instanceof PhoneVerifyError)) throw error;
  switch (error.code) {
    case 'invalid_phone':
    case 'invalid_request': // too long, or characters no number holds
      return {
        status: 400,
        message: 'That phone number does not look right. Check it and include the country code.',
      };
    case 'unsupported_country':
      return { status: 400, message: 'We cannot send codes to numbers in that country.' };
    case 'destination_blocked':
      return {
        status: 400,
        message: 'We cannot send codes to that number. Please use a mobile or landline number.',
      };
    case 'channel_unavailable':
      return { status: 400, message: 'We cannot send codes that way at the moment. Try the other option.' };
    case 'rate_limited':
      return {
        status: 429,
        message: `Too many codes were sent to this number. ${waitText(error.retryAfter)}`,
      };
    default:
      return { status: 503, message: 'We could not send a code just now. Please try again.' };
  }
}

/** The check failed: why. */
export function checkFailure(error: unknown): Shown {
  if (!(error instanceof PhoneVerifyError)) throw error;
  switch (error.code) {
    case 'invalid_request':
      return { status: 400, message: 'Please enter the code we sent you.' };
    case 'rate_limited':
      return { status: 429, message: `Too many wrong codes for this number. ${waitText(error.retryAfter)}` };
    case 'not_found':
      return { status: 400, message: 'That code has expired. Please ask for a new one.' };
    default:
      return { status: 503, message: 'We could not check the code just now. Please try again.' };
  }
}

/** A check that did not verify: wrong, used up, expired or replaced. */
export function notVerified(result: CheckResult): string {
  switch (result.status) {
    case 'failed':
      return 'Too many wrong codes. Please ask for a new one.';
    case 'expired':
      return 'That code has expired. Please ask for a new one.';
    case 'canceled':
      return 'A newer code was sent to this number: use that one, or ask for a new one.';
    case 'verified':
      return 'This code was already used. Please ask for a new one.';
    case 'undelivered':
      return 'We could not deliver the code. Please check the number or try the other option.';
    default: {
      const left = result.attempts_remaining;
      return left === undefined
        ? 'That code is not right. Please try again.'
        : `That code is not right. ${left} ${left === 1 ? 'attempt' : 'attempts'} left.`;
    }
  }
}
