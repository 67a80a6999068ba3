// HTTP as bytes on a socket, for what fetch cannot send: malformed requests, requests that arrive a byte at a
// time, connections held open. Everything the server sends back is kept, and when it closed the connection.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Whether the connection is closed (by either side). */
  closed(): boolean;
  /** How many bytes were written so far. */
  sent(): number;
  write(text: string): void;
  /** Writes `text` one character every `intervalMs` until it is all sent or the connection closes. */
  trickle(text: string, intervalMs: number): void;
  destroy(): void;
}

/** Opens a TCP connection to the host and port of `url`, once connected. */
export function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let sent = 0;
    let closed = false;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (d) => {
      received += d;
    });
    socket.on('close', () => {
      closed = true;
      clearInterval(timer);
    });
    // A connection the server resets is closed like any other; the test reads what arrived before.
    socket.on('error', () => {});
    const write = (text: string) => {
      if (closed || socket.destroyed) return;
      socket.write(text);
      sent += Buffer.byteLength(text);
    };
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => received,
        closed: () => closed,
        sent: () => sent,
        write,
        trickle(text, intervalMs) {
          let next = 0;
          clearInterval(timer);
          timer = setInterval(() => {
            if (closed || next >= text.length) clearInterval(timer);
            else write(text[next++] as string);
          }, intervalMs);
        },
        destroy() {
          clearInterval(timer);
          socket.destroy();
        },
      }),
    );
    socket.once('error', reject);
  });
}

/** Sends one whole request (lines joined with CRLF, then a blank line and `body`) and returns the connection. */
export async function sendRaw(url: string, head: string[], body = ''): Promise<RawConnection> {
  const raw = await openRaw(url);
  raw.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  return raw;
}

/** The status code of the first response in `received`, or undefined before one arrived. */
export function statusOf(received: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3}) /.exec(received);
  return match ? Number(match[1]) : undefined;
}

/** The header block of the first response in `received` (lower-cased), or '' before it is complete. */
export function headOf(received: string): string {
  const end = received.indexOf('\r\n\r\n');
  return end < 0 ? '' : received.slice(0, end).toLowerCase();
}

/** The body of the first response in `received` as JSON (a response with Content-Length, wholly received). */
export function jsonBodyOf<T = Record<string, unknown>>(received: string): T {
  const end = received.indexOf('\r\n\r\n');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(received.slice(0, end))?.[1]);
  return JSON.parse(received.slice(end + 4, end + 4 + length)) as T;
}
