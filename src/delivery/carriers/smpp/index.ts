// SMPP as the service knows it: an SMSC account's fields, and the process's gateway of bound sessions, which
// sends and receives the delivery receipts (there is no status callback: receipts come over the session).
import type { CarrierDescriptor } from '../descriptor.js';
import { refusingProvider } from '../descriptor.js';
import { unreachable } from '../probe.js';
import { createSmppGateway, type SmppGateway } from './gateway.js';
import type { SmppEndpoint } from './session.js';

export const smpp: CarrierDescriptor<SmppEndpoint, SmppGateway> = {
  type: 'smpp',
  label: 'SMPP',
  fields: [
    { name: 'host', label: 'Host', kind: 'text', required: true, cli: { option: 'host', value: 'HOST' } },
    { name: 'port', label: 'Port', kind: 'port', required: true, cli: { option: 'port', value: 'PORT' } },
    {
      name: 'systemId',
      label: 'System ID',
      kind: 'text',
      required: true,
      cli: { option: 'system-id', value: 'ID' },
    },
    {
      name: 'password',
      label: 'Password',
      kind: 'secret',
      required: true,
      cli: { option: 'password', value: 'PASSWORD' },
    },
    {
      name: 'systemType',
      label: 'System type',
      kind: 'text',
      required: false,
      hint: 'Only where the SMSC asks for one.',
      cli: { option: 'system-type', value: 'TYPE' },
    },
  ],
  // The SMSC's address is in the credentials; there is no HTTP API to replace.
  baseUrl: false,
  channels: ['sms'],
  callbackHint: 'None: delivery receipts come over the SMPP session.',
  createAdapter(account, { runtime }) {
    // SMPP keeps a bound session per account, so its adapters come from the process's one gateway.
    if (runtime) return runtime.adapterFor(account);
    return refusingProvider(
      'smpp',
      `Carrier account ${account.id} is an SMPP account, and SMPP sending is not set up in this process: nothing was sent.`,
    );
  },
  // The probe's session is the gateway's, so a receipt the SMSC hands it is applied, not lost.
  probe: async (account, { runtime, timeoutMs }) =>
    runtime
      ? runtime.probe(account, timeoutMs)
      : unreachable('SMPP: SMPP is not set up in this process, so no bind was tried'),
  createRuntime: ({ timeoutMs, log, report }) =>
    createSmppGateway({
      timeoutMs,
      log,
      // Receipts arrive on the account's own session, so they are applied within its workspace alone.
      onReceipt: ({ workspaceId, report: receipt }) => report({ workspaceId, report: receipt }),
    }),
};
