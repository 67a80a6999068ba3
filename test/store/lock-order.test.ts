// The one order in which a transaction takes several locks (src/store/lock-order.ts): ascending keys, the same in
// every process, whatever order the requests came in.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { byKey, inKeyOrder } from '../../src/store/lock-order.js';

describe('lock order', () => {
  test('items go in the order of their keys, whatever order they came in, each key made once', () => {
    const made: string[] = [];
    const key = (item: { ws: string; phone: string }) => {
      made.push(item.phone);
      return `${item.ws}\n${item.phone}`;
    };
    const items = [
      { ws: 'ws_b', phone: '+61412000001' },
      { ws: 'ws_a', phone: '+61412000009' },
      { ws: 'ws_a', phone: '+61412000002' },
    ];
    const ordered = inKeyOrder(items, key);
    assert.deepEqual(
      ordered.map((i) => i.phone),
      ['+61412000002', '+61412000009', '+61412000001'],
    );
    assert.deepEqual(
      inKeyOrder([...items].reverse(), (i) => `${i.ws}\n${i.phone}`),
      ordered,
    );
    assert.equal(made.length, items.length, 'one key an item');
    assert.deepEqual(items[0]?.ws, 'ws_b', 'the input is left as it was');
  });

  test('64-bit keys compare as numbers, past the doubles’ exact range and below zero', () => {
    const keys = [9007199254740993n, -5n, 9007199254740992n, 0n];
    assert.deepEqual([...keys].sort(byKey), [-5n, 0n, 9007199254740992n, 9007199254740993n]);
  });
});
