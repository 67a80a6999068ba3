// A real HTTP receiver of webhooks on 127.0.0.1, verifying what arrives with the `standardwebhooks` package (the
// official verifier a customer would use). Its answer to each request is chosen by the test (default 204).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> & { id: string; status: string } };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** How the next requests are answered: a status, or 'hang' (no answer at all). */
  answer: (req: IncomingMessage) => number | 'hang' | { status: number; location?: string; body?: string };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received: [],
    answer: () => 204,
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : String(v)]),
      );
      receiver.received.push({ headers, body, json: JSON.parse(body) as Received['json'] });
      const answer = receiver.answer(req);
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      const { status, location, body: text } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, location ? { location } : {});
      res.end(text ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}

/**
 * `Webhook.verify` of the standardwebhooks package, as of the message's own timestamp (the package checks it
 * against the wall clock, with five minutes' tolerance; tests move an injected clock far from it). Returns the
 * verified payload; throws as the package does for a bad signature.
 */
export function verifyWebhook(secret: string, received: Received): unknown {
  const sentAt = Number(received.headers['webhook-timestamp']) * 1000;
  const realNow = Date.now;
  Date.now = () => sentAt;
  try {
    return new Webhook(secret).verify(received.body, received.headers);
  } finally {
    Date.now = realNow;
  }
}
