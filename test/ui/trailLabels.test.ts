// The labels at the trail heads: placed beside the head, or moved a line up or
// down when they would overlap, or left out when no line near is free; checked
// on hand-placed heads (a label is 13 px tall, 6.6 px a character, 6 px right of its head).
import { describe, expect, it } from 'vitest';
import { placeLabels } from '../../src/ui/trailLabels';

const at = (id: string, x: number, y: number, text = 'λ=0.1') => ({ id, x, y, text });
const dys = (placed: { id: string; dy: number }[]) => Object.fromEntries(placed.map((p) => [p.id, p.dy]));

describe('placing the head labels', () => {
  it('heads apart: every label beside its head', () => {
    // a's label spans x 106..139 (5 characters), b's starts at 146: no overlap
    expect(dys(placeLabels([at('a', 100, 100), at('b', 140, 100)]))).toEqual({ a: 0, b: 0 });
    // 20 px apart vertically: more than a line
    expect(dys(placeLabels([at('a', 100, 100), at('b', 100, 120)]))).toEqual({ a: 0, b: 0 });
  });
  it('two heads 5 px apart: the lower label goes a line below (above would still touch the first)', () => {
    // a: y 93.5..106.5. b at 105: beside, 98.5..111.5 overlaps; a line up, 85.5..98.5, overlaps too; a line down, 111.5..124.5, is free
    expect(dys(placeLabels([at('b', 100, 105), at('a', 100, 100)]))).toEqual({ a: 0, b: 13 });
  });
  it('heads on one spot: the labels stack a line apart, up to 3 lines each way; the rest are left out', () => {
    const nine = Array.from({ length: 9 }, (_, i) => at(`m${i}`, 100, 100, `λ=${i}`));
    const placed = placeLabels(nine);
    expect(placed).toHaveLength(7);
    expect(placed.map((p) => p.dy).sort((a, b) => a - b)).toEqual([-39, -26, -13, 0, 13, 26, 39]);
    // no two placed labels overlap: their lines differ by a whole line at least
    const ys = placed.map((p) => p.y + p.dy).sort((a, b) => a - b);
    for (let i = 1; i < ys.length; i++) expect(ys[i] - ys[i - 1]).toBeGreaterThanOrEqual(13);
  });
  it('labels without text or a position are left out', () => {
    expect(placeLabels([at('a', NaN, 100), at('b', 100, 100, '')])).toEqual([]);
  });
});
