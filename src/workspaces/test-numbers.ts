// A workspace's test numbers (docs/api.md, "Test numbers"): a phone number with a fixed code, so a customer's
// end-to-end suite can send and check with a test key without reading any outbox. Only test keys use them: a send
// by a test key to a test number makes a verification whose code is the fixed one (stored, like every code, as
// its keyed hash); a live key's send to the same number is an ordinary live send. Adding and removing one is
// written to the audit trail with the change.
import type { Actor } from '../audit/actor.js';
import type { AuditRecorder } from '../audit/record.js';
import { type Clock, toTimestamp } from '../clock.js';
import { AppError, invalidField } from '../errors.js';
import type { Db } from '../store/database.js';
import { prepared } from '../store/prepared.js';
import type { TestNumbersTable } from '../store/tables.js';
import { SUPPORTED_COUNTRIES } from '../vocabulary/countries.js';
import { parsePhone } from './phone-number.js';

/** The most test numbers a workspace may have. */
export const MAX_TEST_NUMBERS = 100;
/** A fixed code: ASCII digits, as long as a code may be (4 to 8, the send's `code_length` range). */
export const TEST_CODE = /^[0-9]{4,8}$/;
const PHONE_MAX = 64;

export interface TestNumberView {
  phone: string;
  code: string;
  created_at: string;
}

const present = (row: TestNumbersTable): TestNumberView => ({
  phone: row.phone,
  code: row.code,
  created_at: toTimestamp(row.created_at),
});

/** The fixed code of a workspace's test number; the send path's one read, made for test keys only. */
const codeOf = prepared((db, p: { workspaceId: string; phone: string }) =>
  db
    .selectFrom('test_numbers')
    .select('code')
    .where('workspace_id', '=', p.workspaceId)
    .where('phone', '=', p.phone),
);

export async function testNumberCode(
  db: Db,
  workspaceId: string,
  phone: string,
): Promise<string | undefined> {
  return (await codeOf(db, { workspaceId, phone })).rows[0]?.code;
}

/** A test number as given: E.164 only (like a workspace number), a supported country, a valid number. */
function parseTestPhone(input: string): string {
  if (input.length > PHONE_MAX) throw invalidField('phone', `must be at most ${PHONE_MAX} characters`);
  if (!input.trim().startsWith('+')) {
    throw new AppError('invalid_phone', 'Give the test number in E.164 form, e.g. +61491570123.');
  }
  return parsePhone(input, undefined, SUPPORTED_COUNTRIES).e164;
}

function validateCode(code: string): string {
  if (!TEST_CODE.test(code)) throw invalidField('code', 'must be 4 to 8 digits (0-9)');
  return code;
}

export function createTestNumbers(deps: {
  db: Db;
  clock: Clock;
  audit: AuditRecorder;
  requireWorkspace: (id: string) => Promise<unknown>;
}) {
  const { db, clock, audit } = deps;
  return {
    async addTestNumber(
      input: { workspaceId: string; phone: string; code: string },
      by: Actor,
    ): Promise<TestNumberView> {
      const code = validateCode(input.code);
      const phone = parseTestPhone(input.phone);
      await deps.requireWorkspace(input.workspaceId);
      const row: TestNumbersTable = { workspace_id: input.workspaceId, phone, code, created_at: clock.now() };
      // Count and insert under the workspace's row lock: concurrent additions cannot pass the cap together.
      await db.transaction().execute(async (tx) => {
        await tx
          .updateTable('workspaces')
          .set({ updated_at: row.created_at })
          .where('id', '=', input.workspaceId)
          .execute();
        const existing = await tx
          .selectFrom('test_numbers')
          .select(['phone'])
          .where('workspace_id', '=', input.workspaceId)
          .execute();
        if (existing.some((r) => r.phone === phone)) {
          throw new AppError(
            'conflict',
            `${phone} is a test number of this workspace already: remove it first.`,
          );
        }
        if (existing.length >= MAX_TEST_NUMBERS) {
          throw new AppError(
            'conflict',
            `This workspace has ${MAX_TEST_NUMBERS} test numbers, the most it may have. Remove one first.`,
          );
        }
        await tx.insertInto('test_numbers').values(row).execute();
        // The code is not recorded: the trail says which number, the list says its code.
        await audit.record(tx, by, {
          workspaceId: input.workspaceId,
          action: 'test_number.added',
          target: phone,
          details: { phone },
        });
      });
      return present(row);
    },

    async listTestNumbers(workspaceId: string): Promise<TestNumberView[]> {
      await deps.requireWorkspace(workspaceId);
      const rows = await db
        .selectFrom('test_numbers')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('phone')
        .execute();
      return rows.map(present);
    },

    /** Scoped to the workspace: another workspace's test number is not found, like one that never was. */
    async removeTestNumber(
      input: { workspaceId: string; phone: string },
      by: Actor,
    ): Promise<TestNumberView> {
      const phone = parseTestPhone(input.phone);
      return db.transaction().execute(async (tx) => {
        const removed = await tx
          .deleteFrom('test_numbers')
          .where('workspace_id', '=', input.workspaceId)
          .where('phone', '=', phone)
          .returningAll()
          .executeTakeFirst();
        if (!removed) throw new AppError('not_found', `${phone} is not a test number of this workspace.`);
        await audit.record(tx, by, {
          workspaceId: input.workspaceId,
          action: 'test_number.removed',
          target: phone,
          details: { phone },
        });
        return present(removed);
      });
    },
  };
}

export type TestNumbers = ReturnType<typeof createTestNumbers>;
