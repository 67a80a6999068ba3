// One bound SMPP session with an SMSC, per SMPP v3.4 (Issue 1.2):
// - §4.1.5 bind_transceiver (interface_version 0x34), so submits and receipts share one connection;
// - §4.11 enquire_link every `enquireLinkMs` while bound, and an answer to the SMSC's own; a link that stops
//   answering is dropped, so the gateway binds again;
// - §4.2 unbind, waiting for the requests still out, to close;
// - the specification's response_timer: every request waits `timeoutMs` for its response (connect and bind
//   too). An SMSC that has stopped answering cannot be trusted with the next message, so a timeout drops the
//   session.
// Failures to connect, bind (for a busy SMSC), or hear back are TransientDeliveryError; a bind refused for the
// account's set-up is BindRefusedError. No message names the password or a message's text.
import smpp from 'smpp';
import { TransientDeliveryError } from '../../provider.js';
import { describeStatus, isTransientBindStatus } from './status.js';

export interface SmppEndpoint {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
}

/** The SMSC refused the bind for the account's credentials or set-up: retrying will not help. */
export class BindRefusedError extends Error {
  readonly status: number;
  constructor(message: string, status: number) {
    super(message);
    this.name = 'BindRefusedError';
    this.status = status;
  }
}

export interface SessionOptions {
  endpoint: SmppEndpoint;
  /** Names the session in messages ("carrier account car_…"). */
  label: string;
  timeoutMs: number;
  enquireLinkMs: number;
  /** A deliver_sm; it is answered (deliver_sm_resp, status 0) once this settles. */
  onDeliverSm(pdu: smpp.PDU): Promise<void>;
  /** This bound session ended; `expected` when it was closed by unbind(), not dropped. */
  onClosed(session: BoundSession, expected: boolean): void;
  log(message: string): void;
}

export interface BoundSession {
  readonly alive: boolean;
  /** The system_id the SMSC named itself with in its bind response ('' when none). */
  readonly smscSystemId: string;
  /** A request and its response (any command_status); throws TransientDeliveryError if there is none. */
  request(command: string, fields?: Record<string, unknown>): Promise<smpp.PDU>;
  /** Unbinds after the requests still out, then closes; never throws. */
  unbind(): Promise<void>;
  /** Drops the connection as if the SMSC had (the gateway binds again). */
  drop(): void;
}

const SMPP_V34 = 0x34;

export function openSession(options: SessionOptions): Promise<BoundSession> {
  const { endpoint, label, timeoutMs } = options;
  const where = `SMSC ${endpoint.host}:${endpoint.port}`;
  const session = smpp.connect({ host: endpoint.host, port: endpoint.port });
  const outstanding = new Map<Promise<unknown>, (err: Error) => void>();
  let bound = false;
  let expected = false;
  let lastError: (Error & { code?: string }) | undefined;
  let enquireTimer: NodeJS.Timeout | undefined;
  let smscSystemId = '';

  const drop = () => session.destroy();

  function request(command: string, fields: Record<string, unknown> = {}): Promise<smpp.PDU> {
    let reject!: (err: Error) => void;
    const response = new Promise<smpp.PDU>((resolve, fail) => {
      reject = fail;
      const timer = setTimeout(() => {
        fail(new TransientDeliveryError(`${where} did not answer ${command} within ${timeoutMs} ms`));
        drop();
      }, timeoutMs);
      const sent = session.send(new smpp.PDU(command, fields), (pdu) => {
        clearTimeout(timer);
        resolve(pdu);
      });
      if (!sent) {
        clearTimeout(timer);
        fail(new TransientDeliveryError(`the connection to ${where} is closed`));
      }
    });
    outstanding.set(response, reject);
    const forget = () => outstanding.delete(response);
    response.then(forget, forget);
    return response;
  }

  const handle: BoundSession = {
    get alive() {
      return bound && !session.socket.destroyed;
    },
    get smscSystemId() {
      return smscSystemId;
    },
    request,
    drop,
    async unbind() {
      if (!handle.alive) return;
      expected = true;
      clearInterval(enquireTimer);
      await Promise.allSettled([...outstanding.keys()]);
      const closed = new Promise<void>((resolve) => session.socket.once('close', () => resolve()));
      await request('unbind').catch(() => undefined);
      session.close();
      // A peer that never closes its side: the socket goes after the timeout anyway.
      const fallback = setTimeout(drop, timeoutMs);
      await closed;
      clearTimeout(fallback);
    },
  };

  // Socket errors close the socket; a PDU the package cannot read leaves it stuck, so both end the session.
  session.on('error', (err) => {
    lastError = err;
    drop();
  });

  // What the SMSC asks of us: receipts and keep-alives are answered; a command we do not take is refused.
  session.on('pdu', (pdu) => {
    if (pdu.isResponse()) return;
    if (pdu.command === 'deliver_sm') {
      options
        .onDeliverSm(pdu)
        .catch(() => undefined)
        .finally(() => session.send(pdu.response()));
    } else if (pdu.command === 'enquire_link') {
      session.send(pdu.response());
    } else if (pdu.command === 'unbind') {
      // The SMSC ended it (maintenance, say): not `expected`, so the gateway binds again.
      session.send(pdu.response(), () => session.close());
    } else if (pdu.command !== 'alert_notification') {
      session.send(pdu.response({ command_status: 0x03 })); // ESME_RINVCMDID
    }
  });

  return new Promise<BoundSession>((resolve, reject) => {
    let phase: 'connecting' | 'binding' | 'bound' = 'connecting';
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(connectTimer);
      reject(err);
      drop();
    };
    const connectTimer = setTimeout(
      () => fail(new TransientDeliveryError(`${where} did not accept a connection within ${timeoutMs} ms`)),
      timeoutMs,
    );

    session.on('close', () => {
      for (const rejectRequest of outstanding.values()) {
        rejectRequest(new TransientDeliveryError(`${where} closed the connection before answering`));
      }
      clearInterval(enquireTimer);
      if (phase !== 'bound') {
        const reason = lastError?.code ?? lastError?.message ?? 'closed';
        fail(new TransientDeliveryError(`${where} could not be reached for ${label} (${reason})`));
        return;
      }
      bound = false;
      options.onClosed(handle, expected);
    });

    session.on('connect', () => {
      phase = 'binding';
      clearTimeout(connectTimer);
      request('bind_transceiver', {
        system_id: endpoint.systemId,
        password: endpoint.password,
        system_type: endpoint.systemType ?? '',
        interface_version: SMPP_V34,
      }).then((pdu) => {
        if (pdu.command_status === 0) {
          smscSystemId = typeof pdu.system_id === 'string' ? pdu.system_id : '';
          phase = 'bound';
          bound = true;
          settled = true;
          startEnquireLink();
          resolve(handle);
          return;
        }
        const status = describeStatus(pdu.command_status);
        fail(
          isTransientBindStatus(pdu.command_status)
            ? new TransientDeliveryError(`${where} refused the bind of ${label} for now: ${status}`)
            : new BindRefusedError(
                `${where} refused the bind of ${label}: ${status}. Check the account's system id and password.`,
                pdu.command_status,
              ),
        );
      }, fail);
    });
  });

  function startEnquireLink() {
    enquireTimer = setInterval(() => {
      request('enquire_link').catch((err: Error) => {
        if (!expected) options.log(`${label}: enquire_link failed (${err.message}); the session is dropped`);
      });
    }, options.enquireLinkMs);
    enquireTimer.unref();
  }
}
