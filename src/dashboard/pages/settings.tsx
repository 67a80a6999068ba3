// Workspace settings: the name (the default brand), the numbers and what each can send, the countries codes may
// go to, and the per-workspace limits. The rules live in the workspace service; this page only shows and asks.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../services.js';
import { twilioServiceSid } from '../../twilio-api/sids.js';
import type { LimitName } from '../../workspaces/service.js';
import { type FormBody, field, fields, formError } from '../forms.js';
import { Layout } from '../layout.js';
import { type Page, renderPage } from '../render.js';
import { actorOf, workspaceOf } from '../session.js';
import { setFlash } from '../session-cookie.js';
import { type FormFailure, PATH, type Section, type SettingsData } from './settings-form.js';
import { NumbersSection, TYPE_LABELS } from './settings-numbers.js';
import { CountriesSection, LIMIT_FIELDS, LimitsSection, NameSection } from './settings-sections.js';
import { TestNumbersSection } from './settings-test-numbers.js';

function SettingsPage(data: SettingsData): Page {
  return (ctx) => (
    <Layout ctx={ctx} title="Workspace">
      <div class="pv-settings">
        <hgroup>
          <h1>{data.settings.name}</h1>
          <p>Workspace settings</p>
        </hgroup>
        <p id="twilio-service-sid">
          Twilio Verify Service SID (for Twilio's SDKs): <code>{twilioServiceSid(data.settings.id)}</code>
        </p>
        <NameSection data={data} csrf={ctx.csrf} />
        <NumbersSection data={data} csrf={ctx.csrf} />
        <TestNumbersSection data={data} csrf={ctx.csrf} />
        <div class="grid settings-columns">
          <CountriesSection data={data} csrf={ctx.csrf} />
          <LimitsSection data={data} csrf={ctx.csrf} />
        </div>
      </div>
    </Layout>
  );
}

export function registerSettingsPages(
  app: FastifyInstance,
  services: Pick<Services, 'workspaces' | 'testNumbers' | 'carriers' | 'carrierTypes'>,
): void {
  const { workspaces } = services;
  const carrierLabels = Object.fromEntries(services.carrierTypes.map((c) => [c.type, c.label]));

  const load = async (workspaceId: string, failure?: FormFailure): Promise<SettingsData> => ({
    settings: await workspaces.getSettings(workspaceId),
    numbers: await workspaces.listNumbers(workspaceId),
    testNumbers: await services.testNumbers.listTestNumbers(workspaceId),
    carriers: await services.carriers.listAccounts(workspaceId),
    carrierLabels,
    failure,
  });

  /** Runs one change: on success a confirmation and back to its section; on failure the form again, with why. */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    form: { section: Section; values: FormFailure['values'] },
    act: (workspaceId: string) => Promise<string>,
  ) {
    const workspace = workspaceOf(request);
    try {
      setFlash(reply, { kind: 'ok', text: await act(workspace.id) });
      return reply.redirect(`${PATH}#${form.section}`);
    } catch (err) {
      const status = formError(err);
      const failure = { ...form, message: (err as Error).message };
      return renderPage(request, reply, SettingsPage(await load(workspace.id, failure)), { status });
    }
  }

  app.get('/settings', async (request, reply) =>
    renderPage(request, reply, SettingsPage(await load(workspaceOf(request).id))),
  );

  app.post('/settings/name', async (request, reply) => {
    const name = field(request.body as FormBody, 'name');
    return change(request, reply, { section: 'name', values: { name } }, async (workspaceId) => {
      const saved = await workspaces.renameWorkspace({ workspaceId, name }, actorOf(request));
      return `Workspace renamed to “${saved.name}”.`;
    });
  });

  app.post('/settings/numbers', async (request, reply) => {
    const body = request.body as FormBody;
    const values = {
      number: field(body, 'number'),
      type: field(body, 'type'),
      carrier_id: field(body, 'carrier_id'),
    };
    return change(request, reply, { section: 'numbers', values }, async (workspaceId) => {
      const added = await workspaces.addNumber(
        {
          workspaceId,
          number: values.number,
          type: values.type === '' ? undefined : values.type,
          carrierId: values.carrier_id === '' || values.carrier_id === 'none' ? undefined : values.carrier_id,
        },
        actorOf(request),
      );
      return `Number ${added.number} added (${TYPE_LABELS[added.type]}).`;
    });
  });

  // Which account a number sends through: one of the workspace's, or `none` (the development provider).
  app.post('/settings/numbers/:id/carrier', async (request, reply) => {
    const { id } = request.params as { id: string };
    const chosen = field(request.body as FormBody, 'carrier_id');
    return change(request, reply, { section: 'numbers', values: {} }, async (workspaceId) => {
      const carrierId = chosen === '' || chosen === 'none' ? null : chosen;
      const moved = await services.carriers.setNumberCarrier(workspaceId, id, carrierId, actorOf(request));
      return carrierId === null
        ? `${moved.number} now sends through the development provider: its codes go to the Inbox.`
        : `${moved.number} now sends through carrier account ${carrierId}.`;
    });
  });

  app.post('/settings/numbers/:id/remove', async (request, reply) => {
    const { id } = request.params as { id: string };
    return change(request, reply, { section: 'numbers', values: {} }, async (workspaceId) => {
      const removed = await workspaces.removeNumber({ workspaceId, numberId: id }, actorOf(request));
      return `Number ${removed.number} removed.`;
    });
  });

  app.post('/settings/test-numbers', async (request, reply) => {
    const body = request.body as FormBody;
    const values = { phone: field(body, 'phone'), code: field(body, 'code') };
    return change(request, reply, { section: 'test-numbers', values }, async (workspaceId) => {
      const added = await services.testNumbers.addTestNumber({ workspaceId, ...values }, actorOf(request));
      return `Test number ${added.phone} added: test keys get the code ${added.code} for it.`;
    });
  });

  app.post('/settings/test-numbers/remove', async (request, reply) => {
    const { phone } = request.query as { phone?: unknown };
    return change(request, reply, { section: 'test-numbers', values: {} }, async (workspaceId) => {
      const removed = await services.testNumbers.removeTestNumber(
        { workspaceId, phone: typeof phone === 'string' ? phone : '' },
        actorOf(request),
      );
      return `Test number ${removed.phone} removed.`;
    });
  });

  app.post('/settings/countries', async (request, reply) => {
    const countries = fields(request.body as FormBody, 'countries');
    return change(request, reply, { section: 'countries', values: { countries } }, async (workspaceId) => {
      const saved = await workspaces.setAllowedCountries({ workspaceId, countries }, actorOf(request));
      return `Codes may now be sent to ${saved.allowed_countries.join(', ')}.`;
    });
  });

  app.post('/settings/limits', async (request, reply) => {
    const body = request.body as FormBody;
    const values = Object.fromEntries(LIMIT_FIELDS.map((f) => [f.name, field(body, f.name)]));
    return change(request, reply, { section: 'limits', values }, async (workspaceId) => {
      // An empty or non-numeric field becomes NaN, which the service refuses with the field's range. A field the
      // form does not hold at all (a page from before the field existed) leaves its limit as it is.
      const limits: Partial<Record<LimitName, number>> = {};
      for (const f of LIMIT_FIELDS) {
        if (body?.[f.name] === undefined) continue;
        const value = values[f.name] ?? '';
        limits[f.name] = value.trim() ? Number(value) : Number.NaN;
      }
      await workspaces.setLimits({ workspaceId, limits }, actorOf(request));
      return 'Limits saved. They apply from the next request.';
    });
  });
}
