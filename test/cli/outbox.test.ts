// Operator interface, CLI command `outbox --to PHONE [--limit N]`: the development provider's messages, newest
// first, written by a real server process and read by the real CLI on the same database.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Message } from '../helpers/api-types.js';
import { freshEnv } from '../helpers/cli-env.js';
import { assertCleanFailure, jsonOf, seedWithCli, TIMESTAMP } from '../helpers/cli-setup.js';
import { runCli, type ServerProcess, startServer } from '../helpers/process.js';

const MESSAGE_FIELDS = ['body', 'channel', 'created_at', 'from', 'id', 'to', 'verification_id'];

describe('CLI: outbox', () => {
  const { dir, env } = freshEnv();
  let server: ServerProcess | undefined;
  // Sends in the order made: [sms to …001, voice to …002, sms to …001 again].
  const sends: { id: string; phone: string; channel: string }[] = [];

  before(async () => {
    server = await startServer(env);
    const { key } = seedWithCli(env);
    for (const [phone, channel] of [
      ['+61412345001', 'sms'],
      ['+61412345002', 'voice'],
      ['+61412345001', 'sms'],
    ] as const) {
      const res = await fetch(`${server.url}/v1/otp/send`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone, channel }),
      });
      assert.equal(res.status, 201, await res.clone().text());
      const v = (await res.json()) as { id: string };
      sends.push({ id: v.id, phone, channel });
    }
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('outbox --to PHONE --json: array, newest first, of { id, verification_id, channel, to, from, body, created_at }', () => {
    const messages = jsonOf<Message[]>(runCli(['outbox', '--to', '+61412345001', '--json'], env));
    assert.ok(Array.isArray(messages));
    assert.equal(messages.length, 2);
    for (const m of messages) {
      assert.deepEqual(Object.keys(m).sort(), MESSAGE_FIELDS);
      assert.match(m.id, /^msg_/);
      assert.equal(m.channel, 'sms');
      assert.equal(m.to, '+61412345001');
      assert.equal(m.from, '+61491570156');
      assert.match(m.created_at, TIMESTAMP);
      assert.match(m.body, /^Acme: .*\d{6}$/);
    }
    // Newest first: the later send's message comes first.
    assert.deepEqual(
      messages.map((m) => m.verification_id),
      [sends[2]?.id, sends[0]?.id],
    );
    assert.ok(Date.parse(messages[0]?.created_at ?? '') >= Date.parse(messages[1]?.created_at ?? ''));
  });

  test('outbox --to takes the number in any form that parses to the same E.164 number', () => {
    const messages = jsonOf<Message[]>(runCli(['outbox', '--to', '+61 412 345 002', '--json'], env));
    assert.deepEqual(
      messages.map((m) => [m.verification_id, m.channel, m.to]),
      [[sends[1]?.id, 'voice', '+61412345002']],
    );
    assert.match(messages[0]?.body ?? '', /Acme/);
  });

  test('outbox --limit N returns only the N newest messages', () => {
    const one = jsonOf<Message[]>(runCli(['outbox', '--to', '+61412345001', '--limit', '1', '--json'], env));
    assert.deepEqual(
      one.map((m) => m.verification_id),
      [sends[2]?.id],
    );
  });

  test('outbox without --to lists every number’s messages, newest first', () => {
    const all = jsonOf<Message[]>(runCli(['outbox', '--json'], env));
    assert.deepEqual(
      all.map((m) => m.verification_id),
      [...sends].reverse().map((s) => s.id),
    );
  });

  test('outbox --to a number with no messages: [] with --json, "(no messages)" without', () => {
    assert.deepEqual(jsonOf(runCli(['outbox', '--to', '+61412345999', '--json'], env)), []);
    const human = runCli(['outbox', '--to', '+61412345999'], env);
    assert.equal(human.status, 0, human.stderr);
    assert.equal(human.stdout, '(no messages)\n');
  });

  test('outbox without --json prints each message with channel, from -> to and the body', () => {
    const human = runCli(['outbox', '--to', '+61412345002'], env);
    assert.equal(human.status, 0, human.stderr);
    assert.match(human.stdout, /voice\s+\+61491570156 -> \+61412345002\n\s+Hello\. This is Acme\./);
  });

  test('outbox with a bad --limit or --to fails cleanly', () => {
    assertCleanFailure(runCli(['outbox', '--limit', '0', '--json'], env), /--limit/);
    assertCleanFailure(runCli(['outbox', '--limit', 'ten', '--json'], env), /--limit/);
    assertCleanFailure(runCli(['outbox', '--to', 'not a phone', '--json'], env), /phone|number/i);
  });
});
