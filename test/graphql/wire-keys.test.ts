/**
 * The answer's wire keys (src/base/wire.ts, src/schema/operations.ts): snake_case everywhere except
 * inside JSON-typed values, whose keys are the client's or a person's own (dish names, synced
 * column names), found through fragments; and a key named __proto__ stays a key.
 */
import { describe, expect, it } from 'vitest';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { snakeKeys } from '../../src/base/wire.ts';

const operations = loadOperations(schema);

describe('JSON values on the wire', () => {
  it('finds the JSON fields an operation selects, also through a fragment', () => {
    expect(operations.byName.get('mealEmojis')!.opaque).toEqual({ mealEmojis: { emojis: true } });
    expect(operations.byName.get('foodCoreBundle')!.opaque).toEqual({
      foodCoreBundle: { document: true },
    });
    expect(operations.byName.get('mealInsight')!.opaque).toEqual({});
  });

  it('keeps the keys inside JSON values and snake_cases the rest', () => {
    const answer = { mealEmojis: { emojis: { Rice: '🍚', greenTea: '🍵' }, builtAt: 1 } };
    expect(snakeKeys(answer, { mealEmojis: { emojis: true } })).toEqual({
      meal_emojis: { emojis: { Rice: '🍚', greenTea: '🍵' }, built_at: 1 },
    });
    expect(snakeKeys({ greenTea: 1 }, true)).toEqual({ greenTea: 1 });
    expect(snakeKeys([{ greenTea: 1 }])).toEqual([{ green_tea: 1 }]);
  });

  it('keeps a key named __proto__ as an own key and never sets a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as object;
    const out = snakeKeys(value) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect((out as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
