// SMPP's credential test: bind as sending does (bind_transceiver, SMPP v3.4 §4.1.5, session.ts), then unbind
// (§4.2). Nothing is submitted. A bind refused for the account's set-up (ESME_RINVPASWD, ESME_RINVSYSID,
// ESME_RBINDFAIL, …) is `refused` with the specification's name of the status; a busy SMSC (ESME_RALYBND,
// ESME_RTHROTTLED, …), no connection or no answer within the deadline is `unreachable`. A delivery receipt the
// SMSC hands this short session is applied like any other (the gateway's `receive`), so none is lost.
import type smpp from 'smpp';
import type { CredentialTestResult } from '../../../carrier-accounts/credential-test.js';
import { carrierText } from '../../carrier-text.js';
import { TransientDeliveryError } from '../../provider.js';
import { unreachable } from '../probe.js';
import { BindRefusedError, type BoundSession, openSession, type SmppEndpoint } from './session.js';

export interface BindProbe {
  account: { id: string; credentials: SmppEndpoint };
  /** The whole deadline: connect, bind and its answer. */
  timeoutMs: number;
  onDeliverSm(pdu: smpp.PDU): Promise<void>;
}

/** An hour: the session lives for one bind and one unbind, so its keep-alive never comes. */
const NO_KEEP_ALIVE_MS = 3_600_000;

export async function probeBind(probe: BindProbe): Promise<CredentialTestResult> {
  const { account, timeoutMs } = probe;
  const { host, port } = account.credentials;
  const opening = openSession({
    endpoint: account.credentials,
    label: `carrier account ${account.id}`,
    timeoutMs,
    enquireLinkMs: NO_KEEP_ALIVE_MS,
    onDeliverSm: probe.onDeliverSm,
    onClosed: () => undefined,
    log: () => undefined,
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  const first = await Promise.race([
    opening.then(
      (session) => ({ session }),
      (error: unknown) => ({ error }),
    ),
    deadline,
  ]);
  clearTimeout(timer);
  if (first === 'late') {
    // A bind answered after the deadline is not left open.
    opening.then(
      (session) => session.unbind(),
      () => undefined,
    );
    return unreachable(`SMPP: SMSC ${host}:${port} did not bind within ${timeoutMs} ms`);
  }
  if ('error' in first) return failed(first.error);
  const session: BoundSession = first.session;
  const smsc = carrierText(session.smscSystemId, 40);
  await session.unbind();
  return {
    outcome: 'ok',
    detail: carrierText(
      `SMPP: bound to SMSC ${host}:${port} as a transceiver${smsc ? ` (its system id "${smsc}")` : ''}, then unbound`,
    ),
  };
}

function failed(err: unknown): CredentialTestResult {
  if (err instanceof BindRefusedError)
    return { outcome: 'refused', detail: carrierText(`SMPP: ${err.message}`) };
  if (err instanceof TransientDeliveryError) return unreachable(`SMPP: ${err.message}`);
  return unreachable('SMPP: the bind could not be made');
}
