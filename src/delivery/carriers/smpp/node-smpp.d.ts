// Types for the parts of the `smpp` package (farhadi/node-smpp 0.5, CommonJS, no types of its own) that the
// adapter and the test SMSC use. PDU fields are named as in the SMPP specification; decoded messages
// (short_message, message_payload) arrive as { message } once the package has read data_coding.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer } from 'node:net';

  namespace smpp {
    /** A decoded short_message or message_payload: the text, as read with the PDU's data_coding. */
    interface DecodedMessage {
      message: string | Buffer;
      udh?: Buffer[];
    }

    interface PDU {
      command: string;
      command_id: number;
      command_status: number;
      sequence_number: number;
      // Fields of the PDU's body and its TLVs, by their specification names.
      [field: string]: unknown;
      isResponse(): boolean;
      response(options?: Record<string, unknown>): PDU;
    }

    type ResponseCallback = (pdu: PDU) => void;

    interface Session extends EventEmitter {
      readonly socket: import('node:net').Socket;
      /** false when the socket no longer takes writes (nothing was sent). */
      send(pdu: PDU, responseCallback?: ResponseCallback, sendCallback?: ResponseCallback): boolean;
      close(callback?: () => void): void;
      destroy(callback?: () => void): void;
      pause(): void;
      resume(): void;
      bind_transceiver(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      submit_sm(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      deliver_sm(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      enquire_link(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      unbind(options: Record<string, unknown>, responseCallback?: ResponseCallback): boolean;
      on(event: 'connect' | 'close', listener: () => void): this;
      on(event: 'error', listener: (err: Error & { code?: string }) => void): this;
      on(event: string, listener: (pdu: PDU) => void): this;
    }

    interface Server extends NetServer {
      sessions: Session[];
    }
  }

  const smpp: {
    connect(options: { host: string; port: number }): smpp.Session;
    createServer(listener: (session: smpp.Session) => void): smpp.Server;
    PDU: new (command: string, options?: Record<string, unknown>) => smpp.PDU;
    /** command_status names (ESME_R…) to their values. */
    errors: Record<string, number>;
  };
  export = smpp;
}
