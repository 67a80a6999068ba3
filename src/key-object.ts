// A secret key as Node's KeyObject, made once per key. Given a Buffer, createHmac and createCipheriv build a
// KeyObject on every call: on Node 24 an HMAC of a code takes 8 µs that way against 1.3 µs with a KeyObject made
// once, and an AES-GCM seal 12 µs against 4 µs (docs/benchmarks.md). Keys are derived once per process, so the
// cache holds a handful of entries, and lets each go with its Buffer.
import { createSecretKey, type KeyObject } from 'node:crypto';

const objects = new WeakMap<Buffer, KeyObject>();

export function keyObject(key: Buffer): KeyObject {
  let object = objects.get(key);
  if (object === undefined) {
    object = createSecretKey(key);
    objects.set(key, object);
  }
  return object;
}
