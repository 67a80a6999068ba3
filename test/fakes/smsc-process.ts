// Starts the SMSC simulator (test/fakes/smsc.ts) as a child process on 127.0.0.1 and drives it over its
// stdin/stdout JSON lines: what it has seen (binds, submits, enquire_links, unbinds, receipt answers), how
// it answers (per destination, per bind), and the receipts it sends.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { eventually } from '../helpers/eventually.js';

export interface SmscAccount {
  systemId: string;
  password: string;
}

export interface BindRecord {
  sessionId: number;
  systemId: string;
  password: string;
  systemType: string;
  interfaceVersion: number;
  /** The command_status answered (0: bound). */
  status: number;
}

export interface SubmitRecord {
  sessionId: number;
  systemId: string;
  sourceTon: number;
  sourceNpi: number;
  source: string;
  destTon: number;
  destNpi: number;
  destination: string;
  esmClass: number;
  registeredDelivery: number;
  dataCoding: number;
  /** The text as the simulator decodes it with data_coding (node-smpp's decoder). */
  text: string;
  /** short_message, or the message_payload TLV for a long text. */
  via: 'short_message' | 'message_payload';
  /** The message_id answered; null where a status, a stall or a drop answered instead. */
  messageId: string | null;
}

export interface SmscState {
  binds: BindRecord[];
  submits: SubmitRecord[];
  enquireLinks: number;
  unbinds: { sessionId: number; systemId: string }[];
  /** deliver_sm_resp command_status of every receipt or deliver_sm the simulator sent. */
  deliverResponses: number[];
  /** Sessions open now. */
  sessions: { id: number; systemId: string | null; bound: boolean }[];
}

/** How the simulator answers submit_sm to one destination (E.164 digits without '+'). */
export type SubmitRule =
  | { kind: 'status'; status: number }
  | { kind: 'stall' }
  | { kind: 'drop' }
  | { kind: 'no_message_id' };

export type ReceiptForm = 'text' | 'tlv';

export interface ReceiptInput {
  messageId: string;
  stat: string;
  err?: string;
  form?: ReceiptForm;
  /** Sent on the bound session of this system id rather than the one the message came on. */
  systemId?: string;
}

export type SmscCommand =
  | { cmd: 'state' }
  | { cmd: 'accounts'; accounts: SmscAccount[] }
  | { cmd: 'rule'; destination: string; rule: SubmitRule | null }
  | { cmd: 'bind_mode'; mode: 'answer' | 'stall' }
  | { cmd: 'enquire_link_mode'; mode: 'answer' | 'ignore' }
  | { cmd: 'drop'; systemId?: string }
  | ({ cmd: 'receipt' } & ReceiptInput)
  | { cmd: 'deliver'; systemId: string; esmClass: number; text: string };

export interface SmscHandle {
  port: number;
  state(): Promise<SmscState>;
  setAccounts(accounts: SmscAccount[]): Promise<void>;
  /** null: back to accepting. */
  rule(destination: string, rule: SubmitRule | null): Promise<void>;
  bindMode(mode: 'answer' | 'stall'): Promise<void>;
  enquireLinkMode(mode: 'answer' | 'ignore'): Promise<void>;
  /** Drops the connections (of one system id, or all) without an unbind; how many. */
  drop(systemId?: string): Promise<number>;
  /** Sends a delivery receipt; the deliver_sm_resp command_status. */
  receipt(input: ReceiptInput): Promise<number>;
  /** Sends any deliver_sm on the system id's bound session; the deliver_sm_resp command_status. */
  deliver(input: { systemId: string; esmClass: number; text: string }): Promise<number>;
  /** Polls the state until `probe` returns something (not undefined or false); fails after `timeoutMs` (eventually.ts). */
  waitFor<T>(
    what: string,
    probe: (state: SmscState) => T | undefined | false,
    timeoutMs?: number,
  ): Promise<T>;
  close(): Promise<void>;
}

const SCRIPT = join(import.meta.dirname, 'smsc.ts');
const ROOT = join(import.meta.dirname, '..', '..');
/** Generous: a slow machine must not fail a test; a wedged simulator still ends it. */
const COMMAND_TIMEOUT_MS = 30_000;

export async function startSmsc(accounts: SmscAccount[]): Promise<SmscHandle> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', SCRIPT, JSON.stringify({ accounts })],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const waiting = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  let nextId = 1;

  const listening = new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the SMSC simulator exited with ${code}`)));
    lines.on('line', (line) => {
      const message = JSON.parse(line) as { port?: number; id?: number; ok?: boolean; result?: unknown };
      if (message.port !== undefined) return resolve(message.port);
      const entry = waiting.get(message.id ?? -1);
      if (!entry) return;
      waiting.delete(message.id ?? -1);
      if (message.ok) entry.resolve(message.result);
      else entry.reject(new Error(`SMSC simulator: ${String(message.result)}`));
    });
  });
  const port = await listening;

  function call<T>(command: SmscCommand): Promise<T> {
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`SMSC simulator: no answer to ${command.cmd}`));
      }, COMMAND_TIMEOUT_MS);
      waiting.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      child.stdin?.write(`${JSON.stringify({ id, ...command })}\n`);
    });
  }

  const handle: SmscHandle = {
    port,
    state: () => call<SmscState>({ cmd: 'state' }),
    setAccounts: (list) => call({ cmd: 'accounts', accounts: list }),
    rule: (destination, rule) => call({ cmd: 'rule', destination, rule }),
    bindMode: (mode) => call({ cmd: 'bind_mode', mode }),
    enquireLinkMode: (mode) => call({ cmd: 'enquire_link_mode', mode }),
    drop: (systemId) => call<number>({ cmd: 'drop', systemId }),
    receipt: (input) => call<number>({ cmd: 'receipt', ...input }),
    deliver: (input) => call<number>({ cmd: 'deliver', ...input }),
    waitFor(what, probe, timeoutMs) {
      return eventually(`SMSC simulator: ${what}`, async () => probe(await handle.state()), {
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        intervalMs: 20,
      });
    },
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin?.end(); // the simulator exits when its input ends
      await exited;
    },
  };
  return handle;
}
