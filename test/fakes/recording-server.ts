// The skeleton the carrier doubles share: a node:http server on 127.0.0.1 that collects each request's body,
// records it (method, path, headers, raw body, and the body read as JSON and as a form), then hands it to the
// fake's own handler. close() drops every open connection, so a request the handler never answers ends too.
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  rawBody: string;
  /** The body parsed as JSON; undefined where it is not JSON. */
  json: unknown;
  /** The body parsed as application/x-www-form-urlencoded. */
  form: URLSearchParams;
}

export type RecordingHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void;

export interface RecordingServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startRecordingServer(handle: RecordingHandler): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody,
        json: parseJson(rawBody),
        form: new URLSearchParams(rawBody),
      };
      requests.push(recorded);
      handle(req, res, recorded);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Answers with a JSON body. The headers given follow `content-type: application/json`, unless they name the
 * content type themselves (in any case), which lets a fake keep its own spelling of the header.
 */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const ownType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  res.writeHead(status, ownType ? headers : { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function parseJson(rawBody: string): unknown {
  try {
    return JSON.parse(rawBody);
  } catch {
    return undefined;
  }
}
