// One POST of a signed webhook: the host resolved here and every address checked (unless private destinations
// are allowed), then the request connects to that very address (its `lookup` answers with it), so a DNS answer
// that changes between the check and the connection cannot move it. Redirects are never followed (a 3xx is a
// failure), the whole exchange is bounded by the timeout, and at most a short printable excerpt of the answer
// is kept.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress, literalAddress } from './destination.js';

/** Characters of an answer's body kept for the dashboard, at most. */
export const EXCERPT_CHARS = 256;
/** Bytes of an answer read at most (the rest is discarded with the connection). */
const READ_BYTES = 4096;

export interface ResolvedAddress {
  address: string;
  family: number;
}
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface PostResult {
  /** The HTTP status; undefined when no answer came. */
  status?: number;
  /** Why it failed without an answer, or why an answer was not a success. */
  error?: string;
  excerpt?: string;
}

export interface PostOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve: Resolve;
}

/** Printable characters of an answer, bounded. */
function excerptOf(bytes: Buffer): string | undefined {
  const text = bytes
    .toString('utf8')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are not kept
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim();
  return text === '' ? undefined : [...text].slice(0, EXCERPT_CHARS).join('');
}

async function resolveChecked(url: URL, options: PostOptions): Promise<ResolvedAddress | string> {
  const literal = literalAddress(url.hostname);
  let addresses: ResolvedAddress[];
  if (literal !== undefined) addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await options.resolve(url.hostname);
    } catch (err) {
      return `the host did not resolve (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  const first = addresses[0];
  if (!first) return 'the host did not resolve';
  if (!options.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    return 'refused: the host resolves to a loopback, private, link-local or metadata address';
  }
  return first;
}

export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const url = new URL(rawUrl);
  const target = await resolveChecked(url, options);
  if (typeof target === 'string') return { error: target };
  const pinned: LookupFunction = (_host, opts, callback) => {
    if (opts.all) callback(null, [target]);
    else callback(null, target.address, target.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    let done = false;
    const finish = (result: PostResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'phone-verify-webhooks/1',
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const status = response.statusCode ?? 0;
        const settle = () => {
          const excerpt = excerptOf(Buffer.concat(chunks));
          const error =
            status >= 300 && status < 400
              ? 'redirect not followed'
              : status >= 200 && status < 300
                ? undefined
                : `answered ${status}`;
          finish({ status, error, excerpt });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          if (size < READ_BYTES) chunks.push(chunk.subarray(0, READ_BYTES - size));
          size += chunk.length;
          if (size >= READ_BYTES) settle();
        });
        response.on('end', settle);
        response.on('error', settle);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${options.timeoutMs} ms` });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (err: NodeJS.ErrnoException) =>
      finish({ error: `connection failed (${err.code ?? err.message})` }),
    );
    request.end(body);
  });
}
