// A TCP gate in front of a local server. Open, it forwards connections; stalled, it accepts them and holds
// them without passing a byte on, as if the network swallowed the request before it reached the server;
// refusing, it does not listen at all (connection refused), keeping its port for when it opens again. Held
// connections are dropped, never forwarded, when their client dies or the gate opens or closes.

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

export interface StallGate {
  /** The gate's address, in the target's scheme: http://127.0.0.1:PORT. */
  url: string;
  stall(): void;
  /** Stops listening: connections are refused until open(). */
  refuse(): Promise<void>;
  open(): Promise<void>;
  /** Connections accepted while stalled and still held. */
  held(): number;
  close(): Promise<void>;
}

export async function startStallGate(targetPort: number): Promise<StallGate> {
  let stalled = false;
  const heldSockets = new Set<Socket>();
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => {
      sockets.delete(client);
      heldSockets.delete(client);
    });
    client.on('error', () => {});
    if (stalled) {
      heldSockets.add(client);
      client.pause();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const dropHeld = () => {
    for (const socket of heldSockets) socket.destroy();
    heldSockets.clear();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    stall: () => {
      stalled = true;
    },
    refuse: () => new Promise<void>((resolve) => server.close(() => resolve())),
    open: async () => {
      stalled = false;
      dropHeld();
      if (!server.listening) await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    held: () => heldSockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        dropHeld();
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
