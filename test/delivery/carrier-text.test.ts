// The one rule for a carrier's words in error_message (src/delivery/carrier-text.ts), the rule by which an HTTP
// carrier's error answer becomes error_message (carrierErrorMessage in src/delivery/carriers/http.ts), and the
// words of a status callback (carrierFailureMessage): printable, on one line, bounded, never a raw body.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { carrierText, MAX_CARRIER_TEXT } from '../../src/delivery/carrier-text.js';
import { carrierErrorMessage, jsonObject } from '../../src/delivery/carriers/http.js';
import { carrierFailureMessage } from '../../src/delivery/reports.js';

/** Controls, invisible formatting, line separators and lone surrogates: none may survive. */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

function assertClean(text: string, max = MAX_CARRIER_TEXT): void {
  assert.ok(text.length <= max, `${text.length} > ${max}`);
  assert.doesNotMatch(text, UNPRINTABLE, JSON.stringify(text));
  assert.equal(text, text.trim());
  assert.doesNotMatch(text, /\s{2}/);
}

describe('carrierText', () => {
  test('ordinary words pass unchanged', () => {
    const words = "The 'To' number +61 491 570 156 is not a valid phone number. Ünïcødé ✓ 你好 🚀";
    assert.equal(carrierText(words), words);
  });

  test('controls, NUL, escapes, line breaks, bidi overrides and zero-width characters become single spaces', () => {
    const dirty =
      'bad\u0000number\r\nnext\tline \u001b[31mred\u001b[0m \u0085c1\u009b \u202eevil\u202c \u200bzero\u2028sep\u2029 \ufeffbom\u007f';
    const clean = carrierText(dirty);
    assertClean(clean);
    assert.equal(clean, 'bad number next line [31mred [0m c1 evil zero sep bom');
  });

  test('lone surrogates go; a pair (an emoji) stays whole', () => {
    assert.equal(carrierText('a\ud800b\udc00c'), 'a b c');
    assert.equal(carrierText('rocket 🚀'), 'rocket 🚀');
  });

  test('a long text is cut to the bound at a character, ending in an ellipsis, never half an emoji', () => {
    for (const unit of ['x', '🚀', 'é', '\u0000y']) {
      for (const length of [MAX_CARRIER_TEXT - 1, MAX_CARRIER_TEXT, MAX_CARRIER_TEXT + 1, 10_000]) {
        const text = carrierText(unit.repeat(length));
        assertClean(text);
        const whole = unit.replace('\u0000', ' ').repeat(length).trim();
        if (whole.length <= MAX_CARRIER_TEXT) assert.equal(text, whole);
        else assert.ok(text.endsWith('…'), text.slice(-5));
      }
    }
    assert.equal(carrierText('abcdef', 4), 'abc…');
    assert.equal(carrierText('ab🚀def', 4), 'ab…', 'the emoji does not fit whole, so it goes whole');
  });

  test('a huge text costs no more than its head, and is still cut and clean', () => {
    const huge = `${'\u0000'.repeat(5_000_000)}words`;
    const text = carrierText(huge);
    assertClean(text);
    assert.equal(text, '…', 'only the head was looked at: the words after five million NULs are not');
    const words = carrierText('word '.repeat(2_000_000));
    assertClean(words);
    assert.ok(words.startsWith('word word'));
  });

  test('numbers become text; anything else is empty', () => {
    assert.equal(carrierText(21211), '21211');
    for (const value of [undefined, null, Number.NaN, Number.POSITIVE_INFINITY, {}, ['a'], true, () => 'x']) {
      assert.equal(carrierText(value), '', String(value));
    }
  });
});

describe('carrierErrorMessage', () => {
  const reply = (status: number, text: string) => ({ status, body: jsonObject(text) });
  const twilioRead = (body: Record<string, unknown>) => ({ code: body.code, words: [body.message] });

  test("the carrier's documented fields: who, status, code and words", () => {
    const r = reply(400, JSON.stringify({ code: 21211, message: "The 'To' number is not valid." }));
    assert.equal(
      carrierErrorMessage('Twilio', r, twilioRead),
      "Twilio HTTP 400 21211: The 'To' number is not valid.",
    );
  });

  test('a body that is not a JSON object (HTML, text, an array, empty) is only its status', () => {
    for (const body of [
      '<html><body><h1>502 Bad Gateway</h1>internal-host-10.0.0.7</body></html>',
      'ERROR internal-host-10.0.0.7',
      '["internal-host-10.0.0.7"]',
      '"internal-host-10.0.0.7"',
      '',
    ]) {
      assert.equal(carrierErrorMessage('Twilio', reply(502, body), twilioRead), 'Twilio HTTP 502', body);
    }
  });

  test('JSON without the documented fields, or with them of the wrong type, is only its status', () => {
    for (const body of [
      { error: 'internal-host-10.0.0.7' },
      { code: { nested: 'internal-host-10.0.0.7' }, message: ['internal-host-10.0.0.7'] },
      { code: null, message: null },
    ]) {
      assert.equal(
        carrierErrorMessage('Twilio', reply(400, JSON.stringify(body)), twilioRead),
        'Twilio HTTP 400',
      );
    }
  });

  test('huge and dirty documented fields are bounded and clean; a huge code leaves room for the words', () => {
    const r = reply(
      400,
      JSON.stringify({
        code: `9${'9'.repeat(100_000)}`,
        message: `bad\u0000\u001b[2J\n${'w'.repeat(100_000)}`,
      }),
    );
    const message = carrierErrorMessage('Twilio', r, twilioRead);
    assertClean(message);
    assert.match(message, /^Twilio HTTP 400 9{39}…: bad \[2J w+…$/);
  });
});

describe("carrierFailureMessage (a status callback's code and words)", () => {
  test('as before for ordinary reports', () => {
    const report = {
      providerId: 'SM1',
      state: 'failed' as const,
      carrierCode: '30003',
      carrierMessage: 'undelivered',
    };
    assert.equal(carrierFailureMessage('Twilio', report), 'Twilio 30003: undelivered');
    assert.equal(
      carrierFailureMessage('Vonage', {
        providerId: 'x',
        state: 'failed',
        carrierCode: 'busy',
        carrierMessage: 'busy',
      }),
      'Vonage: busy',
    );
    assert.equal(
      carrierFailureMessage('Telnyx', { providerId: 'x', state: 'failed' }),
      'Telnyx: delivery failed',
    );
  });

  test('huge, dirty code and words are bounded and clean', () => {
    const message = carrierFailureMessage('Telnyx', {
      providerId: 'x',
      state: 'failed',
      carrierCode: `\u0000${'c'.repeat(10_000)}`,
      carrierMessage: `\u202e${'w\r\n'.repeat(100_000)}`,
    });
    assertClean(message);
    assert.match(message, /^Telnyx c{39}…: w w w/);
  });
});
