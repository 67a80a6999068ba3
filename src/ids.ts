// Prefixed, unguessable identifiers: 24 base62 characters from the CSPRNG (about 143 bits).
import { customAlphabet } from 'nanoid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const random24 = customAlphabet(ALPHABET, 24);

export type IdPrefix = 'ver' | 'key' | 'ws' | 'num' | 'msg' | 'usr' | 'evt' | 'car' | 'req';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${random24()}`;
}
