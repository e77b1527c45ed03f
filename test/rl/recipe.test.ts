// The setting's recipe against hand-worked cases: the interval of penalties with the same optimum
// (the n-th copy adds 0.9 eps^(n-1) (1 - eps) of accuracy on an unknown task), the start penalty
// in its middle (raised to the silence floor; for one copy, nearest the calibrated 0.1 inside it),
// the hold, and the calibrated point as a fixed point.
import { describe, expect, it } from 'vitest';
import { copyValue, memberRecipe, recipeFor, recipeInUse, sameOptimum, withRecipe, SETTLE_MARGIN, SMALL_PENALTY_TEMPERATURE, THIN_MARGIN } from '../../src/rl/recipe';
import { noisyOptimum } from '../../src/rl/robustness';
import { findPreset, presetConfig, PRESETS } from '../../src/envs/presets';

const noisy = findPreset('relay-noisy-dr');
const calibrated = presetConfig(noisy);
const at = (eps: number, lambdaTok: number) => recipeFor(noisy, calibrated, presetConfig(noisy, { channelNoise: eps, lambdaTok }));
const field = (r: ReturnType<typeof at>, f: string) => r.lines.find((l) => l.field === f)?.value;

describe('sameOptimum', () => {
  it('brackets lambda_tok between the values of the copy after the optimum and the optimum\'s last copy', () => {
    // eps 0.3: copies add 0.63, 0.189, 0.0567, 0.0170, 0.0051
    expect(sameOptimum(0.3, 0.1, 8)).toEqual({ copies: 2, lo: 0.9 * 0.3 ** 2 * 0.7, hi: 0.9 * 0.3 * 0.7 });
    // eps 0.5, lambda 0.3: one copy (0.45), the second adds 0.225
    expect(sameOptimum(0.5, 0.3, 8)).toEqual({ copies: 1, lo: 0.225, hi: 0.45 });
    // eps 0.1, lambda 0.01: two copies (0.081 for the second, 0.0081 for the third)
    const s = sameOptimum(0.1, 0.01, 8);
    expect(s.copies).toBe(2);
    expect(s.lo).toBeCloseTo(0.0081, 12);
    expect(s.hi).toBeCloseTo(0.081, 12);
    // silence: no copy is worth 1 per token, and every larger penalty keeps it
    expect(sameOptimum(0.3, 1, 8)).toEqual({ copies: 0, lo: 0.63, hi: Infinity });
    // the message limit binds: at eps 0.5 lambda 0.001 every one of 4 copies pays, and none after
    expect(sameOptimum(0.5, 0.001, 4)).toEqual({ copies: 4, lo: 0, hi: copyValue(0.5, 4, 4) });
  });

  it('agrees with the robustness grid\'s optimum (a separate count) on every setting of a fine grid', () => {
    for (const eps of [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7]) {
      for (const lambdaTok of [0.001, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1]) {
        expect(sameOptimum(eps, lambdaTok, 8).copies, `eps ${eps} lambda ${lambdaTok}`).toBe(noisyOptimum(eps, lambdaTok, 0.3, 8).copies);
      }
    }
  });
});

describe('recipeFor', () => {
  it('changes nothing at a preset\'s calibrated point', () => {
    for (const p of PRESETS) expect(recipeFor(p, presetConfig(p), presetConfig(p)).lines, p.name).toEqual([]);
    expect(at(0.3, 0.1).lines).toEqual([]);
  });

  it('starts in the middle of the penalties with the same optimum, holds it longer the weaker it is, then settles', () => {
    // eps 0.1, lambda 0.01: same optimum on (0.0081, 0.081]; its geometric middle sqrt(0.0081 x 0.081) = 0.0256 -> 0.026
    const r = at(0.1, 0.01);
    expect(field(r, 'lambdaStart')).toBe(0.026);
    // 80 sqrt(0.1 / 0.026) = 156.9, up to a multiple of 10, and 40 more: 0.01 - 0.0081 = 0.0019 < SETTLE_MARGIN, so the settle is 40
    expect(field(r, 'lambdaHold')).toBe(200);
    expect(field(r, 'steps')).toBe(240);
    expect(r.steps).toBe(240);
    // eps 0.15, lambda 0.015: n* = 3 on (0.0026, 0.0172]; the middle 0.0067 is under the silence floor 0.02, which is past
    // the top, so 10% inside the top: 0.0155 -> 0.015, the setting itself, still held longer (80 sqrt(0.1 / 0.015) = 206.6)
    const weak = at(0.15, 0.015);
    expect([field(weak, 'lambdaStart'), field(weak, 'lambdaHold'), field(weak, 'steps')]).toEqual([0.015, 210, 290]);
    // lambda 0: every copy pays, there is no penalty to learn, and no line (no hold of 80 sqrt(0.1 / 0) steps)
    expect(at(0.3, 0).lines.map((l) => l.field)).not.toContain('lambdaHold');
    // eps 0.35, lambda 0.015: n* = 4 on (0.0088, 0.0251]; the middle 0.0149 is raised to the floor 0.02
    expect(field(at(0.35, 0.015), 'lambdaStart')).toBe(0.02);
    // copy 4 adds 0.81 x 0.01 x 0.1 = 0.00081, under a third of 0.01: the hedge cannot tip it, temperature 1 stays
    expect(field(r, 'temperature')).toBeUndefined();
    // eps 0.5, lambda 0.03: n* = 4, copy 6 adds 0.45 x 0.5^5 = 0.0141 >= 0.01: temperature 0.7
    expect(field(at(0.5, 0.03), 'temperature')).toBe(SMALL_PENALTY_TEMPERATURE);
    // eps 0.3, lambda 0.01: n* = 4, copy 6 adds 0.63 x 0.3^5 = 0.0015 < 0.0033: temperature 1 (0.7 starves silence there)
    expect(field(at(0.3, 0.01), 'temperature')).toBeUndefined();
    // eps 0.5, lambda 0.3: one copy on (0.225, 0.45]: nearest the calibrated 0.1, which is below it, so 10% inside the bottom: 0.2475 -> 0.248
    const big = at(0.5, 0.3);
    expect(field(big, 'lambdaStart')).toBeCloseTo(0.248, 12);
    expect(field(big, 'lambdaHold')).toBe(80); // a stronger signal than the calibrated one needs no more steps
    expect(field(big, 'temperature')).toBeUndefined(); // lambda above the calibrated one: temperature 1 stays
    // eps 0.1, lambda 0.3: 0.1 itself has the same optimum (one copy on (0.081, 0.81])
    expect(field(at(0.1, 0.3), 'lambdaStart')).toBe(0.1);
  });

  it('doubles the prompts a step where the start penalty\'s margin over copy n* + 1 is under THIN_MARGIN (hand-computed)', () => {
    expect(THIN_MARGIN).toBe(0.012);
    // eps 0.3, lambda 0.01: start 0.015 against copy 5's 0.9 x 0.3^4 x 0.7 = 0.0051: a margin of 0.0099, thin
    expect(field(at(0.3, 0.01), 'promptsPerStep')).toBe(2 * calibrated.promptsPerStep);
    // eps 0.5, lambda 0.01: n* = 6 on (0.00703, 0.01406]; start 0.0127 -> 0.013 against copy 7's 0.00703: 0.006, thin
    expect(field(at(0.5, 0.01), 'promptsPerStep')).toBe(32);
    // eps 0.5, lambda 0.03: start 0.04 against copy 5's 0.028125 is thin too, but it starts from below instead (next test)
    expect(field(at(0.5, 0.03), 'promptsPerStep')).toBeUndefined();
    // eps 0.15, lambda 0.015: start 0.015 against copy 4's 0.9 x 0.15^3 x 0.85 = 0.00258: 0.0124, not thin
    expect(field(at(0.15, 0.015), 'promptsPerStep')).toBeUndefined();
    // eps 0.3, lambda 0.03: start 0.031 against copy 4's 0.017: 0.014; one copy (eps 0.5, lambda 0.3): no line either
    expect(field(at(0.3, 0.03), 'promptsPerStep')).toBeUndefined();
    expect(field(at(0.5, 0.3), 'promptsPerStep')).toBeUndefined();
    // the group size, a lesson's own slider, is never the recipe's
    for (const eps of [0.1, 0.2, 0.3, 0.4, 0.5]) for (const lambdaTok of [0.005, 0.01, 0.03, 0.1]) expect(field(at(eps, lambdaTok), 'groupSize')).toBeUndefined();
  });

  it('at the bottom of its interval (lambda - lo < SETTLE_MARGIN): a short settle, and from below where the start is thin (hand-computed)', () => {
    expect(SETTLE_MARGIN).toBe(0.0025);
    // eps 0.5, lambda 0.03: copy 5 adds 0.028125, 0.0019 under 0.03; the middle 0.04 is 0.0119 over it (thin), so the start
    // is the middle of 3 copies' (0.05625, 0.1125]: sqrt(0.05625 x 0.1125) = 0.0795 -> 0.08, held 80 sqrt(0.1 / 0.08) = 89.4
    // -> 90 and 40 more, then 40 at 0.03: 170 in all, at the calibrated 16 prompts
    const low = at(0.5, 0.03);
    expect([field(low, 'lambdaStart'), field(low, 'lambdaHold'), field(low, 'steps')]).toEqual([0.08, 130, 170]);
    expect(low.lines.find((l) => l.field === 'lambdaStart')!.why).toMatch(/comes to 4 copies from below/);
    // eps 0.1, lambda 0.01: the same 0.0019, but the middle 0.026 is 0.018 over copy 3's 0.0081: the same start, 200 + 40
    expect([field(at(0.1, 0.01), 'lambdaStart'), field(at(0.1, 0.01), 'steps')]).toEqual([0.026, 240]);
    // eps 0.5, lambda 0.01: 0.01 - 0.00703 = 0.0030, not thin: the calibrated settle of 80 (230 + 80 = 310)
    expect([field(at(0.5, 0.01), 'lambdaHold'), field(at(0.5, 0.01), 'steps')]).toEqual([230, 310]);
    // eps 0.3, lambda 0.03: 0.03 - 0.017 = 0.013: no change (150 + 80)
    expect([field(at(0.3, 0.03), 'lambdaHold'), field(at(0.3, 0.03), 'steps')]).toEqual([150, 230]);
  });

  it('the recipe\'s start penalty has the same optimum as the setting, or one copy fewer where it comes from below', () => {
    for (const eps of [0.1, 0.2, 0.3, 0.4, 0.5]) {
      for (const lambdaTok of [0.005, 0.01, 0.03, 0.05, 0.1, 0.2, 0.3, 0.6]) {
        const start = field(at(eps, lambdaTok), 'lambdaStart');
        if (start === undefined) continue;
        const { copies, lo } = sameOptimum(eps, lambdaTok, 8);
        const fromBelow = lambdaTok - lo < SETTLE_MARGIN && copies >= 2 && noisyOptimum(eps, start, 0.3, 8).copies !== copies;
        expect(noisyOptimum(eps, start, 0.3, 8).copies, `eps ${eps} lambda ${lambdaTok}`).toBe(fromBelow ? copies - 1 : copies);
      }
    }
  });

  it('the clean relay at any digits gets no lines: its shipped warm starts carry it (the withdrawn digits rule)', () => {
    const silence = findPreset('relay-silence'), base = presetConfig(silence);
    for (const digits of [2, 3, 4, 5]) expect(recipeFor(silence, base, presetConfig(silence, { digits })).lines, `digits ${digits}`).toEqual([]);
  });

  it('withRecipe sets exactly the recipe\'s fields', () => {
    const c = presetConfig(noisy, { channelNoise: 0.3, lambdaTok: 0.03 });
    const r = recipeFor(noisy, calibrated, c), next = withRecipe(c, r);
    for (const l of r.lines) expect(next[l.field]).toBe(l.value);
    const changed = Object.keys(c).filter((k) => (c as Record<string, unknown>)[k] !== (next as Record<string, unknown>)[k]);
    expect(changed.sort()).toEqual(r.lines.map((l) => l.field).sort());
  });
});

describe('a population member\'s own recipe (memberRecipe)', () => {
  // the setup on screen: eps 0.5 at lambda 0.03 with its recipe applied (start 0.08 for 130 steps, 170 steps, temperature 0.7; by hand
  // in test/cli/sweep.test.ts); its members at other lambdas must not inherit that schedule
  const shown = withRecipe(presetConfig(noisy, { channelNoise: 0.5, lambdaTok: 0.03 }), recipeFor(noisy, calibrated, presetConfig(noisy, { channelNoise: 0.5, lambdaTok: 0.03 })));

  it('recipeInUse: true once every line is applied, false before or when a line is changed by hand', () => {
    expect(recipeInUse(noisy, calibrated, shown)).toBe(true);
    expect(recipeInUse(noisy, calibrated, presetConfig(noisy, { channelNoise: 0.5, lambdaTok: 0.03 }))).toBe(false);
    expect(recipeInUse(noisy, calibrated, { ...shown, lambdaHold: 50 })).toBe(false);
    expect(recipeInUse(noisy, calibrated, calibrated)).toBe(false); // the calibrated point has no lines
  });

  it('each lambda its own start, hold, steps and temperature (hand-computed); the shown member keeps its own', () => {
    // lambda 0.3 at eps 0.5: one copy on (0.225, 0.45]; start 0.2475 -> 0.248, held 80 steps, 160 in all, temperature back to 1
    const big = memberRecipe(noisy, calibrated, { ...shown, lambdaTok: 0.3 });
    expect([big.lambdaStart, big.lambdaHold, big.steps, big.temperature, big.promptsPerStep]).toEqual([0.248, 80, 160, 1, 16]);
    // lambda 0.1 at eps 0.5: n* = 3 on (0.05625, 0.1125]: the middle 0.0795 -> 0.08, held 80 sqrt(0.1 / 0.08) = 89.4 -> 90, 170 in all
    const mid = memberRecipe(noisy, calibrated, { ...shown, lambdaTok: 0.1 });
    expect([mid.lambdaStart, mid.lambdaHold, mid.steps, mid.temperature]).toEqual([0.08, 90, 170, 1]);
    const same = memberRecipe(noisy, calibrated, shown);
    expect([same.lambdaStart, same.lambdaHold, same.steps, same.temperature, same.promptsPerStep]).toEqual([0.08, 130, 170, 0.7, 16]);
    // fields the rule does not set stay as the member has them
    expect(memberRecipe(noisy, calibrated, { ...shown, lambdaTok: 0.3, lr: 1e-4 }).lr).toBe(1e-4);
  });
});

