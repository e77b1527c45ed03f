// pareto.ts against docs/rl.md section 8; frontiers worked out by hand.
import { describe, expect, it } from 'vitest';
import { betterEval, paretoFrontier } from '../../src/rl/pareto';

const pt = (name: string, tokens: number, accuracy: number) => ({ name, tokens, accuracy });

describe('paretoFrontier', () => {
  it('keeps exactly the non-dominated points, sorted by tokens', () => {
    const a = pt('a', 1, 0.5), b = pt('b', 2, 0.9), c = pt('c', 2, 0.8), d = pt('d', 3, 0.9);
    const e = pt('e', 0, 0.1), f = pt('f', 5, 1.0), g = pt('g', 4, 0.95), h = pt('h', 1, 0.4), i = pt('i', 6, 1.0);
    // c: b has equal tokens, higher accuracy. d: b has fewer tokens, equal accuracy.
    // h: a has equal tokens, higher accuracy. i: f has fewer tokens, equal accuracy.
    const input = [d, f, h, b, i, e, c, g, a];
    const before = input.map((p) => p.name);
    const front = paretoFrontier(input);
    expect(front.map((p) => p.name)).toEqual(['e', 'a', 'b', 'g', 'f']);
    expect(front[0]).toBe(e); // the same objects, extra fields kept
    expect(input.map((p) => p.name)).toEqual(before); // input order untouched
  });

  it('exact duplicates do not dominate each other: both stay', () => {
    const x = pt('x', 2, 0.75), y = pt('y', 2, 0.75), z = pt('z', 3, 0.75), w = pt('w', 1, 0.25);
    const front = paretoFrontier([z, y, w, x]);
    expect(front.map((p) => p.tokens)).toEqual([1, 2, 2]);
    expect(new Set(front.map((p) => p.name))).toEqual(new Set(['w', 'x', 'y']));
  });

  it('one point dominating all others leaves one point', () => {
    expect(paretoFrontier([pt('a', 3, 0.5), pt('b', 0, 1), pt('c', 1, 0.9)]).map((p) => p.name)).toEqual(['b']);
  });

  it('a chain of trade-offs is all frontier; empty and single inputs', () => {
    const pts = [pt('c', 4, 0.9), pt('a', 0, 0.2), pt('b', 2, 0.6)];
    expect(paretoFrontier(pts).map((p) => p.name)).toEqual(['a', 'b', 'c']);
    expect(paretoFrontier([])).toEqual([]);
    expect(paretoFrontier([pt('s', 7, 0)]).map((p) => p.name)).toEqual(['s']);
  });
});

describe('betterEval (accuracy, ties by fewer tokens)', () => {
  it('orders as docs/rl.md section 8 says', () => {
    expect(betterEval({ accuracy: 0.1, tokens: 9 }, null)).toBe(true);
    expect(betterEval({ accuracy: 0.9, tokens: 5 }, { accuracy: 0.8, tokens: 1 })).toBe(true);
    expect(betterEval({ accuracy: 0.8, tokens: 1 }, { accuracy: 0.9, tokens: 5 })).toBe(false);
    expect(betterEval({ accuracy: 0.9, tokens: 4 }, { accuracy: 0.9, tokens: 5 })).toBe(true);
    expect(betterEval({ accuracy: 0.9, tokens: 6 }, { accuracy: 0.9, tokens: 5 })).toBe(false);
    expect(betterEval({ accuracy: 0.9, tokens: 5 }, { accuracy: 0.9, tokens: 5 })).toBe(false); // equal is not better
  });
});
