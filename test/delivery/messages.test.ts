// Unit tests of the message texts. service-spec "Channels": voice "reads the code out twice, then hangs up",
// SMS "a text message ending in the code". api-decisions "Delivery": the SMS ends in the code (nothing after it
// but optional white space); the voice script reads the code digit by digit twice, then hangs up.
// service-spec section 4 (brand_name "spoken and written in the message").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { smsText } from '../../src/delivery/sms-text.js';
import { localeFor, toSpokenText, toSsml, voiceScript } from '../../src/delivery/voice-script.js';

const CODES = ['123456', '000000', '0042', '98765432', '1000'];

/**
 * A small XML well-formedness check for the SSML subset: every tag balanced and properly nested, attribute values
 * quoted, text free of raw `<` and of `&` other than the five predefined entities and numeric references.
 * Returns the decoded text content.
 */
function parseXml(xml: string): { root: string; text: string } {
  const token =
    /<\/?([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<&]*")*)\s*(\/?)>|<|&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);|&|[^<&]+/g;
  const stack: string[] = [];
  let root = '';
  let text = '';
  let closedRoot = false;
  for (const m of xml.matchAll(token)) {
    const [whole, name, , selfClosing] = m;
    if (name) {
      assert.ok(!closedRoot, 'nothing after the root element');
      if (whole.startsWith('</')) {
        assert.equal(stack.pop(), name, `closing </${name}> matches its opening tag`);
        if (stack.length === 0) closedRoot = true;
      } else {
        if (stack.length === 0) {
          assert.equal(root, '', 'a single root element');
          root = name;
        }
        if (selfClosing) {
          if (stack.length === 0) closedRoot = true;
        } else stack.push(name);
      }
    } else if (whole === '<') {
      assert.fail(`a raw "<" in text: ${xml}`);
    } else if (whole === '&') {
      assert.fail(`a raw "&" in text: ${xml}`);
    } else if (whole.startsWith('&')) {
      assert.ok(stack.length > 0, 'text inside the root');
      text += { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" }[whole] ?? '?';
    } else {
      if (stack.length === 0) assert.match(whole, /^\s*$/, 'no text outside the root element');
      text += whole;
    }
  }
  assert.equal(stack.length, 0, `every element is closed: ${xml}`);
  assert.ok(closedRoot, 'there is a root element');
  return { root, text };
}

describe('SMS text (smsText)', () => {
  for (const code of CODES) {
    test(`ends in the code ${code}, with nothing after it but optional white space`, () => {
      const text = smsText('Acme', code);
      assert.match(text, new RegExp(`${code}\\s*$`));
      // The code is the whole last run of digits: no digit run ends later, and it is not glued to a longer one.
      assert.equal(/(\d+)\s*$/.exec(text)?.[1], code);
    });
  }

  test('carries the brand', () => {
    assert.ok(smsText('Acme Widgets', '123456').includes('Acme Widgets'));
    assert.ok(smsText('A&B <Co>', '123456').includes('A&B <Co>'), 'SMS is plain text: the brand is verbatim');
  });

  test('a brand with digits does not disturb the code at the end', () => {
    const text = smsText('Shop 24', '555123');
    assert.equal(/(\d+)\s*$/.exec(text)?.[1], '555123');
  });

  test('contains the code once (it is not repeated elsewhere in the text)', () => {
    const text = smsText('Acme', '482913');
    assert.equal(text.split('482913').length - 1, 1);
  });
});

describe('voice script (voiceScript, toSpokenText, toSsml)', () => {
  test('reads the code digit by digit, twice, then hangs up', () => {
    for (const code of CODES) {
      const script = voiceScript('Acme', code, 'en-AU');
      const digitSteps = script.steps.filter((s) => 'digits' in s);
      assert.deepEqual(digitSteps, [{ digits: code }, { digits: code }], 'the code is read twice');
      assert.deepEqual(script.steps.at(-1), { hangup: true }, 'the last step hangs up');
      assert.equal(script.steps.filter((s) => 'hangup' in s).length, 1);
      const hangupAt = script.steps.findIndex((s) => 'hangup' in s);
      const lastDigitsAt = script.steps.findLastIndex((s) => 'digits' in s);
      assert.ok(lastDigitsAt < hangupAt, 'both readings come before the hang-up');
    }
  });

  test('the spoken text reads each digit separately, twice, and ends by hanging up', () => {
    const code = '407123';
    const spoken = toSpokenText(voiceScript('Acme', code, 'en-AU'));
    const digitByDigit = '4, 0, 7, 1, 2, 3';
    assert.equal(spoken.split(digitByDigit).length - 1, 2, 'two readings, digit by digit');
    assert.ok(!spoken.includes(code), 'the code is never read as one number');
    assert.match(spoken, /\[hangs up\]\s*$/);
    assert.ok(spoken.includes('Acme'), 'the brand is spoken');
  });

  test('leading zeros are read out', () => {
    const spoken = toSpokenText(voiceScript('Acme', '0042', 'en-AU'));
    assert.equal(spoken.split('0, 0, 4, 2').length - 1, 2);
  });

  test('the SSML is well-formed: one <speak> root, the code as digits twice, pauses as breaks', () => {
    const code = '918273';
    const ssml = toSsml(voiceScript('Acme', code, 'en-GB'));
    const { root, text } = parseXml(ssml);
    assert.equal(root, 'speak');
    const sayAs = [...ssml.matchAll(/<say-as interpret-as="digits">(\d+)<\/say-as>/g)].map((m) => m[1]);
    assert.deepEqual(sayAs, [code, code], 'the code is read digit by digit (say-as digits), twice');
    assert.match(ssml, /<break time="\d+ms"\/>/);
    assert.ok(text.includes('Acme'));
  });

  test('the SSML escapes the brand: "A&B <Co>" stays text and the markup stays well-formed', () => {
    const brand = 'A&B <Co>';
    const ssml = toSsml(voiceScript(brand, '123456', 'en-AU'));
    assert.ok(!ssml.includes('<Co>'), 'the brand cannot inject an element');
    assert.ok(ssml.includes('A&amp;B &lt;Co&gt;'));
    const { root, text } = parseXml(ssml);
    assert.equal(root, 'speak');
    assert.ok(text.includes(brand), 'the decoded text carries the brand verbatim');
  });

  test('the SSML escapes quotes and apostrophes in the brand', () => {
    const brand = `Bob's "Best" </speak><audio src="x"/>`;
    const ssml = toSsml(voiceScript(brand, '123456', 'en-AU'));
    const { text } = parseXml(ssml);
    assert.ok(text.includes(brand));
    assert.ok(!ssml.includes('<audio'));
    assert.equal(ssml.match(/<\/speak>/g)?.length, 1);
  });

  test('the locale follows the destination country and is carried into the SSML', () => {
    const expected = { AU: 'en-AU', US: 'en-US', CA: 'en-CA', GB: 'en-GB', NZ: 'en-NZ' };
    for (const [country, locale] of Object.entries(expected)) {
      assert.equal(localeFor(country), locale, country);
      const script = voiceScript('Acme', '123456', localeFor(country));
      assert.equal(script.locale, locale);
      assert.match(toSsml(script), new RegExp(`^<speak xml:lang="${locale}">`));
    }
  });
});
