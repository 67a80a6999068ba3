// The Twilio Verify v2 subset a verification flow uses, under /twilio (docs/twilio-compatibility.md): a translation
// layer over the verification service, so every rule (supersede, limits, attempts, delivery, the pumping guard) is
// the one /v1 has. Form-encoded bodies are read here only; everything answers in Twilio's shapes and error bodies.
import fastifyFormbody from '@fastify/formbody';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { AppError, invalidField } from '../errors.js';
import type { AdmissionDeps } from '../keys/auth-hook.js';
import { principalOf } from '../keys/auth-hook.js';
import type { Principal } from '../keys/service.js';
import type { VerificationService } from '../verification/service.js';
import type { WorkspaceService } from '../workspaces/service.js';
import { authenticateBasic } from './auth.js';
import { answerTwilioError, TwilioApiError } from './errors.js';
import {
  CHANNEL_FROM_TWILIO,
  presentCheck,
  presentService,
  presentVerification,
  serviceContext,
} from './present.js';
import {
  CheckForm,
  CreateVerificationForm,
  ServiceParams,
  TwilioService,
  TwilioVerification,
  TwilioVerificationCheck,
  UpdateForm,
  VerificationParams,
} from './schemas.js';
import { idPrefixOfSid, isVerificationId } from './sids.js';

/** Twilio's bodies are a few parameters: nothing near this. */
export const TWILIO_BODY_LIMIT_BYTES = 4096;

/** English, the only language our messages and calls speak: `en`, or `en` with a region (`en-GB`, `en-US`). */
const ENGLISH = /^en(?:-[A-Za-z]{2})?$/i;

export interface TwilioApiDeps extends AdmissionDeps {
  verifications: VerificationService;
  workspaces: Pick<WorkspaceService, 'requireWorkspace'>;
  publicUrl: string;
}

export function twilioRoutes(deps: TwilioApiDeps): FastifyPluginAsyncTypebox {
  const { verifications } = deps;
  const context = (principal: Principal) => serviceContext(deps.publicUrl, principal.workspaceId);

  /** A verification's id from what names it: a VE SID, our own id, or its number (the newest pending code's). */
  async function idOf(principal: Principal, name: string): Promise<string> {
    if (isVerificationId(name)) return name;
    const prefix = idPrefixOfSid(name);
    if (prefix !== undefined) return verifications.idWithPrefix(principal, prefix);
    if (name.startsWith('+')) return (await verifications.getForPhone(principal, name)).id;
    throw new AppError('not_found', `No verification ${name}.`);
  }

  return async (app) => {
    // Form-encoded parameters are the Twilio wire format, and the only body this plugin reads (JSON is a 415).
    app.removeAllContentTypeParsers();
    await app.register(fastifyFormbody, { bodyLimit: TWILIO_BODY_LIMIT_BYTES });
    app.setErrorHandler(answerTwilioError);
    // Every resource not served here (Services CRUD, Access Tokens, Entities, Safelist, …): Twilio's 404.
    app.setNotFoundHandler(async (request) => {
      throw new AppError('not_found', `No route ${request.method} ${request.url}.`);
    });
    app.addHook('onRequest', authenticateBasic(deps));

    const config = { scope: 'otp' as const };
    const hide = true;

    app.get(
      '/v2/Services/:ServiceSid',
      { config, schema: { hide, params: ServiceParams, response: { 200: TwilioService } } },
      async (request) => {
        const principal = principalOf(request);
        return presentService(
          await deps.workspaces.requireWorkspace(principal.workspaceId),
          context(principal),
        );
      },
    );

    app.post(
      '/v2/Services/:ServiceSid/Verifications',
      {
        config: { ...config, twilio: 'send' },
        bodyLimit: TWILIO_BODY_LIMIT_BYTES,
        schema: {
          hide,
          params: ServiceParams,
          body: CreateVerificationForm,
          response: { 201: TwilioVerification },
        },
      },
      async (request, reply) => {
        const { To, Channel, CustomFriendlyName, Locale } = request.body;
        if (Locale !== undefined && !ENGLISH.test(Locale)) {
          throw invalidField('Locale', 'only English is spoken and written: en, or en with a region (en-GB)');
        }
        const principal = principalOf(request);
        const sent = await verifications.send(principal, {
          phone: To,
          channel: CHANNEL_FROM_TWILIO[Channel],
          brand_name: CustomFriendlyName,
        });
        return reply.code(201).send(presentVerification(sent, context(principal)));
      },
    );

    app.get(
      '/v2/Services/:ServiceSid/Verifications/:Sid',
      { config, schema: { hide, params: VerificationParams, response: { 200: TwilioVerification } } },
      async (request) => {
        const principal = principalOf(request);
        const { Sid } = request.params;
        const found = Sid.startsWith('+')
          ? await verifications.getForPhone(principal, Sid)
          : await verifications.get(principal, await idOf(principal, Sid));
        return presentVerification(found, context(principal));
      },
    );

    app.post(
      '/v2/Services/:ServiceSid/Verifications/:Sid',
      {
        config,
        bodyLimit: TWILIO_BODY_LIMIT_BYTES,
        schema: { hide, params: VerificationParams, body: UpdateForm, response: { 200: TwilioVerification } },
      },
      async (request) => {
        const { Status } = request.body;
        // Approving without a code would make a verification that proves nothing: no flow of ours needs it.
        if (Status === 'approved') {
          throw invalidField(
            'Status',
            'approved is not supported: a verification is approved by checking its code',
          );
        }
        if (Status !== 'canceled') throw invalidField('Status', 'must be canceled');
        const principal = principalOf(request);
        const canceled = await verifications.cancel(principal, await idOf(principal, request.params.Sid));
        return presentVerification(canceled, context(principal));
      },
    );

    app.post(
      '/v2/Services/:ServiceSid/VerificationCheck',
      {
        config: { ...config, twilio: 'check' },
        bodyLimit: TWILIO_BODY_LIMIT_BYTES,
        schema: { hide, params: ServiceParams, body: CheckForm, response: { 200: TwilioVerificationCheck } },
      },
      async (request) => {
        const principal = principalOf(request);
        const result = await verifications.check(principal, await checkBody(principal, request.body));
        if (result.status === 'failed') {
          throw new TwilioApiError(
            429,
            60202,
            'Max check attempts reached: this verification takes no more codes. Start a new one.',
          );
        }
        // Twilio's answer where nothing is pending: an expired, canceled or undelivered verification is gone.
        if (result.status !== 'pending' && result.status !== 'verified') {
          throw new AppError('not_found', `Verification ${result.id} is ${result.status}.`);
        }
        return presentCheck(result, await verifications.get(principal, result.id), context(principal));
      },
    );

    /** The check's body in /v1's terms: one of VerificationSid and To, as /v1 takes one of its two. */
    async function checkBody(principal: Principal, form: CheckForm) {
      const { Code, To, VerificationSid } = form;
      if (VerificationSid === undefined) return { code: Code, phone: To };
      if (!isVerificationId(VerificationSid) && idPrefixOfSid(VerificationSid) === undefined) {
        throw invalidField('VerificationSid', 'must be a VE… SID (or a ver_… id) this service gave');
      }
      if (To !== undefined)
        throw invalidField('VerificationSid', 'give one of VerificationSid and To, not both');
      return { code: Code, verification_id: await idOf(principal, VerificationSid) };
    }
  };
}
