// The test-number commands (docs/api.md, "Test numbers"): a workspace's numbers with a fixed code, which only
// test keys (pv_test_…) use. The code is shown: it is no secret, since no live send ever takes it.
import { OPERATOR } from '../audit/actor.js';
import { MAX_TEST_NUMBERS } from '../workspaces/test-numbers.js';
import { type Command, required, text, workspaceIdOf } from './options.js';
import { printRecord, printTable } from './output.js';

const phone = text('the test number in E.164 form, e.g. +61491570123');

export const TEST_NUMBER_COMMANDS: Record<string, Command> = {
  'test-number add': {
    summary: `give a workspace a test number with a fixed code, for test keys only (at most ${MAX_TEST_NUMBERS})`,
    example: 'phone-verify test-number add --workspace ws_… --phone +61491570123 --code 123456',
    usage: 'test-number add --workspace WS_ID --phone PHONE --code DIGITS',
    options: {
      workspace: text("the workspace's id (ws_…, from workspace list)"),
      phone,
      code: text("the code every test key's send to it gets: 4 to 8 digits"),
    },
    run: (s, v) =>
      s.testNumbers.addTestNumber(
        { workspaceId: workspaceIdOf(v), phone: required(v, 'phone'), code: required(v, 'code') },
        OPERATOR,
      ),
    print: (r) => printRecord(r as object),
  },
  'test-number list': {
    summary: "list a workspace's test numbers and their codes",
    example: 'phone-verify test-number list --workspace ws_…',
    usage: 'test-number list --workspace WS_ID',
    options: { workspace: text("the workspace's id (ws_…, from workspace list)") },
    run: (s, v) => s.testNumbers.listTestNumbers(workspaceIdOf(v)),
    print: (r) => printTable(r as object[], ['phone', 'code', 'created_at']),
  },
  'test-number remove': {
    summary: 'remove a test number: a test key sends to it like to any number again',
    example: 'phone-verify test-number remove --workspace ws_… --phone +61491570123',
    usage: 'test-number remove --workspace WS_ID --phone PHONE',
    options: { workspace: text("the workspace's id (ws_…, from workspace list)"), phone },
    run: (s, v) =>
      s.testNumbers.removeTestNumber(
        { workspaceId: workspaceIdOf(v), phone: required(v, 'phone') },
        OPERATOR,
      ),
    print: (r) => printRecord(r as object),
  },
};
