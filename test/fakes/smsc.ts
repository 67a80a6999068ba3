// An SMSC simulator, run as its own process (test/fakes/smsc-process.ts starts it): an SMPP v3.4 server built
// on node-smpp's createServer, listening on 127.0.0.1 at a free port, which it prints as the first line of
// stdout ({"port": N}). It follows the specification's side of the exchange: bind_transceiver for the
// configured system ids and passwords (others are refused with ESME_RINVPASWD, §4.1.5), submit_sm answered
// with a message_id (§4.4), enquire_link and unbind answered (§4.11, §4.2), and SMSC delivery receipts sent as
// deliver_sm (esm_class 0x04) in the Appendix B text form or with the receipted_message_id / message_state
// TLVs (§5.3.2.12, §5.3.2.35). The test steers it with one JSON command per stdin line; each is answered with
// {"id", "ok", "result"} on stdout. It exits when stdin ends.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import smpp from 'smpp';
import type {
  ReceiptInput,
  SmscAccount,
  SmscCommand,
  SmscState,
  SubmitRecord,
  SubmitRule,
} from './smsc-process.js';

const ESME_RINVBNDSTS = 0x04;
const ESME_RINVPASWD = 0x0e;
const SMSC_DELIVERY_RECEIPT = 0x04;
/** §5.2.28 message_state of each Appendix B stat. */
const MESSAGE_STATES: Record<string, number> = {
  ENROUTE: 1,
  DELIVRD: 2,
  EXPIRED: 3,
  DELETED: 4,
  UNDELIV: 5,
  ACCEPTD: 6,
  UNKNOWN: 7,
  REJECTD: 8,
};

interface Peer {
  id: number;
  session: smpp.Session;
  systemId: string | null;
  bound: boolean;
}

let accounts = (JSON.parse(process.argv[2] ?? '{}') as { accounts?: SmscAccount[] }).accounts ?? [];
const rules = new Map<string, SubmitRule>();
let bindMode: 'answer' | 'stall' = 'answer';
let enquireLinkMode: 'answer' | 'ignore' = 'answer';
const peers = new Map<number, Peer>();
const sent = new Map<string, { peerId: number; record: SubmitRecord }>();
const state: Omit<SmscState, 'sessions'> = {
  binds: [],
  submits: [],
  enquireLinks: 0,
  unbinds: [],
  deliverResponses: [],
};
let nextPeer = 1;

function textOf(value: unknown): string {
  if (value !== null && typeof value === 'object' && 'message' in value) {
    const message = (value as { message: unknown }).message;
    return Buffer.isBuffer(message) ? message.toString('latin1') : String(message);
  }
  return '';
}

function onSubmit(peer: Peer, pdu: smpp.PDU) {
  if (!peer.bound) return peer.session.send(pdu.response({ command_status: ESME_RINVBNDSTS }));
  const payload = pdu.message_payload !== undefined;
  const field = payload ? 'message_payload' : 'short_message';
  const record: SubmitRecord = {
    sessionId: peer.id,
    systemId: peer.systemId ?? '',
    sourceTon: pdu.source_addr_ton as number,
    sourceNpi: pdu.source_addr_npi as number,
    source: pdu.source_addr as string,
    destTon: pdu.dest_addr_ton as number,
    destNpi: pdu.dest_addr_npi as number,
    destination: pdu.destination_addr as string,
    esmClass: pdu.esm_class as number,
    registeredDelivery: pdu.registered_delivery as number,
    dataCoding: pdu.data_coding as number,
    text: textOf(pdu[field]),
    via: payload ? 'message_payload' : 'short_message',
    messageId: null,
  };
  state.submits.push(record);
  const rule = rules.get(record.destination);
  if (rule?.kind === 'stall') return;
  if (rule?.kind === 'drop') return peer.session.destroy();
  if (rule?.kind === 'status') return peer.session.send(pdu.response({ command_status: rule.status }));
  if (rule?.kind === 'no_message_id') return peer.session.send(pdu.response({ message_id: '' }));
  record.messageId = randomBytes(5).toString('hex'); // 10 characters, as Appendix B's id
  sent.set(record.messageId, { peerId: peer.id, record });
  peer.session.send(pdu.response({ message_id: record.messageId }));
}

const server = smpp.createServer((session) => {
  const peer: Peer = { id: nextPeer++, session, systemId: null, bound: false };
  peers.set(peer.id, peer);
  session.on('close', () => peers.delete(peer.id));
  session.on('error', () => session.destroy());
  session.on('bind_transceiver', (pdu) => {
    if (bindMode === 'stall') return;
    const systemId = String(pdu.system_id);
    const password = String(pdu.password);
    const known = accounts.some((a) => a.systemId === systemId && a.password === password);
    const status = known ? 0 : ESME_RINVPASWD;
    state.binds.push({
      sessionId: peer.id,
      systemId,
      password,
      systemType: String(pdu.system_type),
      interfaceVersion: pdu.interface_version as number,
      status,
    });
    peer.systemId = systemId;
    peer.bound = known;
    session.send(pdu.response({ command_status: status, system_id: 'smsc-sim' }));
    if (!known) session.close();
  });
  session.on('submit_sm', (pdu) => onSubmit(peer, pdu));
  session.on('enquire_link', (pdu) => {
    state.enquireLinks += 1;
    if (enquireLinkMode === 'answer') session.send(pdu.response());
  });
  session.on('unbind', (pdu) => {
    state.unbinds.push({ sessionId: peer.id, systemId: peer.systemId ?? '' });
    peer.bound = false;
    session.send(pdu.response(), () => session.close());
  });
});

function boundPeer(systemId: string): Peer {
  const peer = [...peers.values()].reverse().find((p) => p.bound && p.systemId === systemId);
  if (!peer) throw new Error(`no bound session of ${systemId}`);
  return peer;
}

/** Sends a deliver_sm and resolves with the deliver_sm_resp command_status. */
function deliver(peer: Peer, fields: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ok = peer.session.deliver_sm(fields, (resp) => {
      state.deliverResponses.push(resp.command_status);
      resolve(resp.command_status);
    });
    if (!ok) reject(new Error('the session is closed'));
  });
}

const yymmddhhmm = () => new Date().toISOString().replace(/\D/g, '').slice(2, 12);

function sendReceipt(input: ReceiptInput): Promise<number> {
  const original = sent.get(input.messageId);
  if (!original) throw new Error(`no message ${input.messageId}`);
  const peer = boundPeer(input.systemId ?? original.record.systemId);
  const { record } = original;
  const err = input.err ?? '000';
  const dlvrd = input.stat === 'DELIVRD' ? '001' : '000';
  const start = record.text.slice(0, 20).replace(/[^\x20-\x7e]/g, '?');
  const text = `id:${input.messageId} sub:001 dlvrd:${dlvrd} submit date:${yymmddhhmm()} done date:${yymmddhhmm()} stat:${input.stat} err:${err} text:${start}`;
  const common = {
    source_addr_ton: 1,
    source_addr_npi: 1,
    source_addr: record.destination,
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    destination_addr: record.source,
    esm_class: SMSC_DELIVERY_RECEIPT,
    data_coding: 0,
  };
  if (input.form === 'tlv') {
    const messageState = MESSAGE_STATES[input.stat];
    if (messageState === undefined) throw new Error(`no message_state for ${input.stat}`);
    return deliver(peer, {
      ...common,
      short_message: Buffer.alloc(0),
      receipted_message_id: input.messageId,
      message_state: messageState,
    });
  }
  return deliver(peer, { ...common, short_message: Buffer.from(text, 'ascii') });
}

async function run(command: SmscCommand): Promise<unknown> {
  switch (command.cmd) {
    case 'state':
      return {
        ...state,
        sessions: [...peers.values()].map((p) => ({ id: p.id, systemId: p.systemId, bound: p.bound })),
      } satisfies SmscState;
    case 'accounts':
      accounts = command.accounts;
      return null;
    case 'rule':
      if (command.rule) rules.set(command.destination, command.rule);
      else rules.delete(command.destination);
      return null;
    case 'bind_mode':
      bindMode = command.mode;
      return null;
    case 'enquire_link_mode':
      enquireLinkMode = command.mode;
      return null;
    case 'drop': {
      const dropped = [...peers.values()].filter((p) => !command.systemId || p.systemId === command.systemId);
      for (const peer of dropped) {
        peer.bound = false; // at once: the state read next must not show it bound
        peer.session.destroy();
      }
      return dropped.length;
    }
    case 'receipt':
      return sendReceipt(command);
    case 'deliver':
      return deliver(boundPeer(command.systemId), {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: '61412345678',
        esm_class: command.esmClass,
        data_coding: 0,
        short_message: Buffer.from(command.text, 'ascii'),
      });
  }
}

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const { id, ...command } = JSON.parse(line) as { id: number } & SmscCommand;
  run(command as SmscCommand).then(
    (result) => process.stdout.write(`${JSON.stringify({ id, ok: true, result })}\n`),
    (err: Error) => process.stdout.write(`${JSON.stringify({ id, ok: false, result: err.message })}\n`),
  );
});
input.on('close', () => {
  for (const peer of peers.values()) peer.session.destroy();
  server.close(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ port })}\n`);
});
