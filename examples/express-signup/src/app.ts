// The sign-up flow: the phone form sends a code, the code form checks it, the verified page ends it.
import type { PhoneVerify } from '@phone-verify/client';
import express, { type Request } from 'express';
import { checkFailure, notVerified, sendFailure } from './messages.ts';
import { sessionOf } from './sessions.ts';
import { codePage, phonePage, verifiedPage } from './views.ts';

/** A form field as one string ('' when absent or sent twice). */
function field(request: Request, name: string): string {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value.trim() : '';
}

export function createApp(phoneVerify: PhoneVerify, options: { brandName: string }) {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.urlencoded({ extended: false, limit: '4kb' }));
  app.use((_request, response, next) => {
    response.set({
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    });
    next();
  });

  app.get('/', (request, response) => {
    const session = sessionOf(request, response);
    if (session.verifiedPhone) return response.redirect(303, '/verified');
    if (session.verificationId) return response.redirect(303, '/code');
    response.type('html').send(phonePage());
  });

  app.post('/send', async (request, response) => {
    const session = sessionOf(request, response);
    const phone = field(request, 'phone');
    const channel = field(request, 'channel') === 'voice' ? 'voice' : 'sms';
    if (phone === '')
      return response
        .status(400)
        .type('html')
        .send(phonePage({ error: 'Please enter a phone number.', channel }));
    try {
      const verification = await phoneVerify.send({ phone, channel, brand_name: options.brandName });
      session.verificationId = verification.id;
      session.phone = verification.phone;
      session.verifiedPhone = undefined;
      response.redirect(303, '/code');
    } catch (error) {
      const shown = sendFailure(error);
      response
        .status(shown.status)
        .type('html')
        .send(phonePage({ error: shown.message, phone, channel }));
    }
  });

  app.get('/code', (request, response) => {
    const session = sessionOf(request, response);
    if (!session.verificationId || !session.phone) return response.redirect(303, '/');
    response.type('html').send(codePage({ phone: session.phone }));
  });

  app.post('/check', async (request, response) => {
    const session = sessionOf(request, response);
    const { verificationId, phone } = session;
    if (!verificationId || !phone) return response.redirect(303, '/');
    const showError = (status: number, error: string) =>
      response.status(status).type('html').send(codePage({ phone, error }));
    try {
      // The id comes from the session, never from the form: the code is checked against this browser's send.
      const result = await phoneVerify.check({
        verification_id: verificationId,
        code: field(request, 'code'),
      });
      if (!result.verified) return showError(400, notVerified(result));
      session.verificationId = undefined;
      session.verifiedPhone = phone;
      response.redirect(303, '/verified');
    } catch (error) {
      const shown = checkFailure(error);
      showError(shown.status, shown.message);
    }
  });

  app.get('/verified', (request, response) => {
    const session = sessionOf(request, response);
    if (!session.verifiedPhone) return response.redirect(303, '/');
    response.type('html').send(verifiedPage(session.verifiedPhone));
  });

  app.post('/restart', (request, response) => {
    const session = sessionOf(request, response);
    session.verificationId = undefined;
    session.phone = undefined;
    session.verifiedPhone = undefined;
    response.redirect(303, '/');
  });

  return app;
}
