// The chart's labels (trail heads' values, populations' names, live changes, baselines): each placed beside its
// point when free, else at the nearest free spot, clear of every other label, of every mark (eval dots, heads,
// warm-start stars, crosses) and inside the plot area; left out when nothing near is free. Checked on hand-placed
// scenes where the labels' naive spots (right of a head, above a change) lie on marks or on each other.
import { describe, expect, it } from 'vitest';
import { estimateWidth, GAP_PX, lineOf, markBox, overlaps, placeLabels, type Box, type LabelAt } from '../../src/ui/trailLabels';
import { movedLabel } from '../../src/ui/shownRuns';
import type { RunMeta } from '../../src/store/runTypes';

const head = (id: string, x: number, y: number, text = 'λ=0.1', more: Partial<LabelAt> = {}): LabelAt => ({ id, x, y, text, r: 3.75, ...more });
const PLOT: Box = { x0: 0, y0: 0, x1: 400, y1: 300 };
const dot = (x: number, y: number) => markBox(x, y, 4.5);
const star = (x: number, y: number) => markBox(x, y, 8.5);
const ids = (placed: { id: string }[]) => placed.map((p) => p.id).sort();

/** Every placed label inside the plot, clear of every obstacle and at least a pixel from every other label. */
function expectClear(placed: { id: string; box: Box }[], obstacles: Box[], bounds = PLOT) {
  for (const p of placed) {
    expect(p.box.x0 >= bounds.x0 && p.box.x1 <= bounds.x1 && p.box.y0 >= bounds.y0 && p.box.y1 <= bounds.y1, `${p.id} inside the plot: ${JSON.stringify(p.box)}`).toBe(true);
    for (const o of obstacles) expect(overlaps(p.box, o), `${p.id} ${JSON.stringify(p.box)} on a mark ${JSON.stringify(o)}`).toBe(false);
    for (const q of placed) if (q !== p) expect(overlaps(p.box, q.box, 1), `${p.id} on ${q.id}`).toBe(false);
  }
}

describe('placing the chart\'s labels', () => {
  it('points apart: every label beside its point, on its side, with no leader', () => {
    const placed = placeLabels([head('a', 100, 100), head('b', 200, 100), head('c', 300, 200, 'lambda_tok 0.05', { side: 'top', size: 10 })], { bounds: PLOT });
    const by = Object.fromEntries(placed.map((p) => [p.id, p]));
    expect(by.a.box.x0).toBeCloseTo(100 + 3.75 + GAP_PX);
    expect(by.a.dy).toBe(0);
    expect(by.b.box.x0).toBeCloseTo(200 + 3.75 + GAP_PX);
    // above its point, centred
    expect(by.c.box.y1).toBeCloseTo(200 - 3.75 - GAP_PX);
    expect((by.c.box.x0 + by.c.box.x1) / 2).toBeCloseTo(300);
    expect(placed.every((p) => p.leader === null)).toBe(true);
  });

  it('a head under the warm-start star with evals to its right: its label leaves the marks (the naive spot is on the star)', () => {
    // the first visit: the λ=0 head sits on the warm start, its first evals just right of it
    const obstacles = [star(100, 150), dot(100, 150), dot(118, 150), dot(132, 147), markBox(104, 151, 3.75)];
    const labels = [head('h', 104, 151, 'λ=0')];
    // the old placement (no obstacles) writes it right beside its head: over the star and the dots
    const naive = placeLabels(labels);
    expect(obstacles.some((o) => overlaps(naive[0].box, o))).toBe(true);
    const placed = placeLabels(labels, { obstacles, bounds: PLOT });
    expect(ids(placed)).toEqual(['h']);
    expectClear(placed, obstacles);
  });

  it('the first visit\'s scene: four heads by the star and their evals, a frontier label, two live changes on one eval; nothing overlaps', () => {
    const heads = [head('l0', 102, 150, 'λ=0'), head('l003', 110, 146, 'λ=0.03'), head('l01', 96, 158, 'λ=0.1'), head('l03', 150, 190, 'λ=0.3')];
    const evals = [[100, 150], [112, 149], [124, 152], [108, 140], [140, 170], [160, 200], [100, 165], [120, 160]] as const;
    const obstacles = [star(100, 150), ...evals.map(([x, y]) => dot(x, y)), ...heads.map((h) => markBox(h.x, h.y, 3.75)), markBox(124, 152, 8.25)];
    const labels: LabelAt[] = [
      ...heads,
      { id: 'frontier', x: 110, y: 146, text: 'relay-noisy-quick', bold: true, side: 'top', r: 3.75, priority: 1 },
      // two changes marked at one eval (the Firefox overprint "lambda_tok 0.0?")
      { id: 'c1', x: 124, y: 152, text: 'lambda_tok 0.05', size: 10, side: 'top', r: 8.25, priority: 2 },
      { id: 'c2', x: 124, y: 152, text: 'lambda_tok 0.03', size: 10, side: 'top', r: 8.25, priority: 2 },
    ];
    // the old placement overprints: labels on marks, and the two changes on one spot
    const naive = placeLabels(labels);
    expect(naive.some((p) => obstacles.some((o) => overlaps(p.box, o)))).toBe(true);
    const placed = placeLabels(labels, { obstacles, bounds: PLOT });
    expectClear(placed, obstacles);
    expect(ids(placed)).toEqual(['c1', 'c2', 'frontier', 'l0', 'l003', 'l01', 'l03']); // room for all of them here
    // a label moved off its point has a leader from its mark's edge to its box
    for (const p of placed.filter((q) => q.leader)) {
      const [x1, y1, x2, y2] = p.leader!;
      expect(Math.hypot(x1 - p.x, y1 - p.y)).toBeCloseTo((p.r ?? 4) + 1);
      expect(x2 >= p.box.x0 - 1e-9 && x2 <= p.box.x1 + 1e-9 && y2 >= p.box.y0 - 1e-9 && y2 <= p.box.y1 + 1e-9).toBe(true);
    }
    expect(placed.some((p) => p.leader)).toBe(true);
  });

  it('the same text at the same point once; two frontier labels of one spot ("(1)", "(2)") both placed, apart', () => {
    const placed = placeLabels([
      { id: 'a', x: 200, y: 100, text: 'relay-noisy-dr (1)', bold: true, side: 'top' }, { id: 'b', x: 200, y: 100, text: 'relay-noisy-dr (2)', bold: true, side: 'top' },
      { id: 'c', x: 200, y: 100, text: 'relay-noisy-dr (1)', bold: true, side: 'top' },
    ], { obstacles: [markBox(200, 100, 4)], bounds: PLOT });
    expect(ids(placed)).toEqual(['a', 'b']);
    expectClear(placed, [markBox(200, 100, 4)]);
  });

  it('at the plot\'s right edge the label goes left of its point; at the top, below', () => {
    const [right] = placeLabels([head('r', 390, 100, 'λ=0.3')], { bounds: PLOT });
    expect(right.box.x1).toBeCloseTo(390 - 3.75 - GAP_PX);
    expect(right.box.x1).toBeLessThanOrEqual(PLOT.x1);
    const [top] = placeLabels([{ id: 't', x: 200, y: 4, text: 'lambda_tok 0.1', size: 10, side: 'top', r: 8 }], { bounds: PLOT });
    expect(top.box.y0).toBeGreaterThanOrEqual(0);
    expectClear([right, top], []);
  });

  it('a label with no free spot near is left out; the others are still placed', () => {
    // a head buried in a field of evals 8 px apart: every spot within three lines lies on a dot
    const field: Box[] = [];
    for (let x = 40; x <= 260; x += 8) for (let y = 40; y <= 260; y += 8) field.push(dot(x, y));
    const placed = placeLabels([head('buried', 150, 150), head('free', 330, 150)], { obstacles: field, bounds: PLOT });
    expect(ids(placed)).toEqual(['free']);
    expectClear(placed, field);
    // and with no room in the plot at all, nothing is drawn
    expect(placeLabels([head('tiny', 5, 5, 'λ=0.03')], { bounds: { x0: 0, y0: 0, x1: 10, y1: 10 } })).toEqual([]);
  });

  it('many labels on one spot: as many as fit near it, none overlapping; the first placed win by priority', () => {
    const nine = Array.from({ length: 9 }, (_, i) => head(`m${i}`, 200, 150, `λ=${i}`, { priority: i === 8 ? -1 : 0 }));
    const obstacles = [markBox(200, 150, 3.75)];
    const placed = placeLabels(nine, { obstacles, bounds: PLOT });
    expect(placed.length).toBeGreaterThanOrEqual(7);
    expectClear(placed, obstacles);
    // priority -1: m8 takes the preferred spot, right beside the head on its line
    expect(placed.find((p) => p.id === 'm8')).toMatchObject({ dy: 0, leader: null });
    expect(placed.find((p) => p.id === 'm8')!.box.x0).toBeCloseTo(200 + 3.75 + GAP_PX);
  });

  it('widths: measured when given, else a generous estimate (bold wider); labels without text or a position are left out', () => {
    expect(estimateWidth('relay-noisy-quick', 11, true)).toBeGreaterThan(estimateWidth('relay-noisy-quick', 11));
    expect(estimateWidth('λ=0.03', 11)).toBeGreaterThanOrEqual(6 * 11 * 0.6); // DejaVu Sans: 40 px
    const [m] = placeLabels([head('m', 100, 100, 'λ=0', { width: 50 })]);
    expect(m.box.x1 - m.box.x0).toBe(50);
    expect(m.box.y1 - m.box.y0).toBeCloseTo(lineOf(11));
    expect(placeLabels([head('a', NaN, 100), head('b', 100, 100, '')])).toEqual([]);
  });
});

describe('a member\'s trail label after a live change', () => {
  const meta = (lambdaTok: number, changes: { step: number; field: string; value: unknown }[]) => ({ config: { lambdaTok }, changes }) as unknown as RunMeta;
  it('names the value it landed on beside its own, as its chip does; unmoved, its value alone', () => {
    expect(movedLabel('λ=0', 'lambdaTok', meta(0, [{ step: 3, field: 'lambdaTok', value: 0.2 }, { step: 9, field: 'lambdaTok', value: 0.5 }]))).toBe('λ=0→0.5');
    expect(movedLabel('λ=0', 'lambdaTok', meta(0, [{ step: 3, field: 'lr', value: 1e-3 }]))).toBe('λ=0');
    expect(movedLabel('λ=0', 'lambdaTok', meta(0, [{ step: 3, field: 'lambdaTok', value: 0 }]))).toBe('λ=0'); // moved back
    expect(movedLabel('B=4', 'budget', meta(0, [{ step: 3, field: 'lambdaTok', value: 0.2 }]))).toBe('B=4'); // the dual update moves it
    expect(movedLabel('λ=0.1', 'lambdaTok', undefined)).toBe('λ=0.1');
  });
});
