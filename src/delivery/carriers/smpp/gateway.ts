// The SMPP gateway: lives as long as the serving process and keeps one bound transceiver session (SMPP v3.4
// §4.1.5) per carrier account, so that submits go out at once and the SMSC's delivery receipts (§4.6.1) have
// a session to arrive on. A session is opened by the account's first send (the CLI, which never sends, opens
// none), kept alive with enquire_link, bound again after a drop (backing off while the SMSC is away), and
// replaced when the account's credentials change. close() unbinds every session.
import { createHash } from 'node:crypto';
import type smpp from 'smpp';
import type { CredentialTestResult } from '../../../carrier-accounts/credential-test.js';
import {
  type DeliveryProvider,
  type HandOver,
  type OutboundMessage,
  type StatusReport,
  TransientDeliveryError,
} from '../../provider.js';
import { probeBind } from './probe.js';
import { isDeliveryReceipt, parseReceipt } from './receipt.js';
import { BindRefusedError, type BoundSession, openSession, type SmppEndpoint } from './session.js';
import { classifySubmitStatus, describeStatus, ESME } from './status.js';
import { submitSmFor } from './submit.js';

export interface SmppAccount {
  id: string;
  workspaceId: string;
  credentials: SmppEndpoint;
}

export interface SmppReceipt {
  accountId: string;
  workspaceId: string;
  report: StatusReport;
}

/** Lines for the operator; they name accounts, SMSC addresses and statuses, never a password or a text. */
export interface SmppLog {
  info(message: string): void;
  warn(message: string): void;
}

export interface SmppGatewayOptions {
  /** A delivery receipt from an account's SMSC; the SMSC is answered once this settles. */
  onReceipt(receipt: SmppReceipt): Promise<unknown>;
  /** Connect, bind and every response (default 10 s). */
  timeoutMs?: number;
  /** Keep-alive interval of a bound session (default 30 s). */
  enquireLinkMs?: number;
  /** First wait before binding again after a drop; it doubles up to a minute (default 1 s). */
  rebindDelayMs?: number;
  log?: SmppLog;
}

export interface SmppGateway {
  /** The account's DeliveryProvider (name 'smpp'); cheap, the session is shared by account id. */
  adapterFor(account: SmppAccount): DeliveryProvider;
  /** Unbinds and forgets an account's session (the account was removed). */
  release(accountId: string): Promise<void>;
  /** Releases the session of every account not among these (removed through another process); how many. */
  releaseAllBut(accountIds: ReadonlySet<string>): Promise<number>;
  /** Unbinds every session and waits for them to close. */
  close(): Promise<void>;
  /** "Test credentials": a session of its own, bound then unbound; receipts arriving on it are applied. */
  probe(account: SmppAccount, timeoutMs: number): Promise<CredentialTestResult>;
}

const MAX_REBIND_DELAY_MS = 60_000;

interface Link {
  fingerprint: string;
  bound(): Promise<BoundSession>;
  close(): Promise<void>;
}

const defaultLog: SmppLog = {
  info: () => {},
  warn: (message) => process.emitWarning(`smpp: ${message}`),
};

/** Changes with any credential, so a rotated password or a moved SMSC gets a new session. */
function fingerprintOf({ host, port, systemId, password, systemType }: SmppEndpoint): string {
  const material = JSON.stringify([host, port, systemId, password, systemType ?? '']);
  return createHash('sha256').update(material).digest('hex');
}

const refusal = (errorMessage: string): HandOver => ({
  ok: false,
  providerId: null,
  errorCode: 'provider_error',
  errorMessage,
});

export function createSmppGateway(options: SmppGatewayOptions): SmppGateway {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const enquireLinkMs = options.enquireLinkMs ?? 30_000;
  const rebindDelayMs = options.rebindDelayMs ?? 1000;
  const log = options.log ?? defaultLog;
  const links = new Map<string, Link>();
  const retiring = new Set<Promise<void>>();
  let closed = false;

  async function receive(account: SmppAccount, label: string, pdu: smpp.PDU): Promise<void> {
    if (!isDeliveryReceipt(pdu.esm_class)) {
      log.info(`${label}: acknowledged a deliver_sm that is not a delivery receipt (a reply from a phone?)`);
      return;
    }
    const report = parseReceipt(pdu);
    if (!report) {
      log.warn(`${label}: acknowledged a delivery receipt without a message id or a known state; ignored`);
      return;
    }
    try {
      await options.onReceipt({ accountId: account.id, workspaceId: account.workspaceId, report });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      log.warn(`${label}: the receipt for message ${report.providerId} could not be applied (${reason})`);
    }
  }

  function createLink(account: SmppAccount): Link {
    const label = `carrier account ${account.id}`;
    let session: BoundSession | undefined;
    let opening: Promise<BoundSession> | undefined;
    let rebindTimer: NodeJS.Timeout | undefined;
    let rebindDelay = rebindDelayMs;
    let everBound = false;
    let linkClosed = false;

    // Once bound, the session is wanted for its receipts even when nothing is sent: keep trying.
    function scheduleRebind(reason: string) {
      if (linkClosed || rebindTimer) return;
      const delay = rebindDelay;
      rebindDelay = Math.min(rebindDelay * 2, MAX_REBIND_DELAY_MS);
      log.warn(`${label}: ${reason}; binding again in ${delay} ms`);
      rebindTimer = setTimeout(() => {
        rebindTimer = undefined;
        bound().catch(() => undefined);
      }, delay);
      rebindTimer.unref();
    }

    function bound(): Promise<BoundSession> {
      if (linkClosed) return Promise.reject(new TransientDeliveryError(`the session of ${label} is closing`));
      if (session?.alive) return Promise.resolve(session);
      if (opening) return opening;
      clearTimeout(rebindTimer);
      rebindTimer = undefined;
      opening = openSession({
        endpoint: account.credentials,
        label,
        timeoutMs,
        enquireLinkMs,
        onDeliverSm: (pdu) => receive(account, label, pdu),
        onClosed: (closedSession, expected) => {
          if (session !== closedSession) return; // one already replaced (dropped after a timeout, say)
          session = undefined;
          if (!expected) scheduleRebind('the SMSC session dropped');
        },
        log: log.warn,
      })
        .then(
          (opened) => {
            session = opened;
            everBound = true;
            rebindDelay = rebindDelayMs;
            return opened;
          },
          (err: unknown) => {
            if (everBound && err instanceof BindRefusedError) {
              log.warn(`${err.message} Not binding again until the next send.`);
            } else if (everBound && err instanceof Error) {
              scheduleRebind(`binding again failed (${err.message})`);
            }
            throw err;
          },
        )
        .finally(() => {
          opening = undefined;
        });
      return opening;
    }

    return {
      fingerprint: fingerprintOf(account.credentials),
      bound,
      async close() {
        linkClosed = true;
        clearTimeout(rebindTimer);
        await opening?.catch(() => undefined);
        await session?.unbind();
        session = undefined;
      },
    };
  }

  function retire(link: Link) {
    const closing = link.close().finally(() => retiring.delete(closing));
    retiring.add(closing);
  }

  function linkFor(account: SmppAccount): Link {
    const fingerprint = fingerprintOf(account.credentials);
    const current = links.get(account.id);
    if (current?.fingerprint === fingerprint) return current;
    // New credentials: the old session is unbound (after its requests still out) and a new one opened.
    if (current) retire(current);
    const link = createLink(account);
    links.set(account.id, link);
    return link;
  }

  async function send(account: SmppAccount, message: OutboundMessage): Promise<HandOver> {
    if (message.channel !== 'sms') {
      return refusal(
        `SMPP carries SMS only: carrier account ${account.id} cannot make ${message.channel} calls.`,
      );
    }
    if (closed) throw new TransientDeliveryError('the SMPP gateway is closed (the process is stopping)');
    let session: BoundSession;
    try {
      session = await linkFor(account).bound();
    } catch (err) {
      if (err instanceof BindRefusedError) return refusal(err.message);
      throw err;
    }
    const response = await session.request('submit_sm', submitSmFor(message));
    const status = response.command_status;
    const where = `SMSC ${account.credentials.host}:${account.credentials.port}`;
    if (status === 0) {
      const messageId = typeof response.message_id === 'string' ? response.message_id : '';
      if (messageId === '')
        throw new TransientDeliveryError(`${where} answered submit_sm without a message_id`);
      return { ok: true, providerId: messageId };
    }
    const outcome = classifySubmitStatus(status);
    if (outcome === 'transient') {
      // The SMSC no longer knows our bind: a fresh session for the retry.
      if (status === ESME.RINVBNDSTS) session.drop();
      throw new TransientDeliveryError(`${where} answered submit_sm with ${describeStatus(status)}`);
    }
    const what = outcome === 'destination_rejected' ? 'the destination' : 'the message';
    return {
      ok: false,
      providerId: null,
      errorCode: outcome,
      errorMessage: `SMPP ${describeStatus(status)}: ${where} refused ${what}`,
    };
  }

  async function release(accountId: string): Promise<void> {
    const link = links.get(accountId);
    links.delete(accountId);
    await link?.close();
  }

  return {
    adapterFor(account) {
      return { name: 'smpp', send: (message) => send(account, message) };
    },
    release,
    probe: (account, probeTimeoutMs) =>
      probeBind({
        account,
        timeoutMs: probeTimeoutMs,
        onDeliverSm: (pdu) => receive(account, `carrier account ${account.id}`, pdu),
      }),
    async releaseAllBut(accountIds) {
      const gone = [...links.keys()].filter((id) => !accountIds.has(id));
      await Promise.all(gone.map(release));
      return gone.length;
    },
    async close() {
      closed = true;
      const all = [...links.values()].map((link) => link.close());
      links.clear();
      await Promise.all([...all, ...retiring]);
    },
  };
}
