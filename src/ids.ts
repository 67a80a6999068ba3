// Prefixed, unguessable identifiers: 24 base62 characters, the first 8 the creation time in milliseconds and
// the other 16 from the CSPRNG (about 95 bits, far past guessing). Time first, so new rows append to the end
// of every index keyed by an id (the newest page, shared by a turn's writes) instead of landing on a random
// page each: fewer pages written per commit, and hot pages stay in cache. What an id reveals is when it was
// made, which its owner is told anyway (created_at).
import { customAlphabet } from 'nanoid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const TIME_CHARS = 8; // 62^8 ms: past the year 6000
const random16 = customAlphabet(ALPHABET, 16);

export type IdPrefix =
  | 'ver'
  | 'key'
  | 'ws'
  | 'num'
  | 'msg'
  | 'usr'
  | 'evt'
  | 'car'
  | 'req'
  | 'blk'
  | 'aud'
  | 'wh'
  | 'att'
  | 'ref';

let lastMs = -1;
let lastTime = '';

/** The millisecond clock in base62, fixed width, so ids sort by the time they were made. */
function timePart(ms: number): string {
  if (ms === lastMs) return lastTime;
  let n = ms;
  let out = '';
  for (let i = 0; i < TIME_CHARS; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  lastMs = ms;
  lastTime = out;
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${timePart(Date.now())}${random16()}`;
}

/** An unguessable token (lease tokens and the like): 16 base62 characters from the pooled CSPRNG. */
export const newToken: () => string = random16;
