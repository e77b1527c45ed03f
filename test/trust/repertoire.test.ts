// A warm start's repertoire: RL can only compress toward behaviours the warm start samples
// now and then (silence on known tasks, the short formats). The rates are checked on
// hand-built episodes, the demonstrations' rates against the demo mix's design (10%
// silent, 20% of the rest short), and every shipped relay warm start against its own
// demonstrations at temperature 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig, presetSlots } from '../../src/envs/presets';
import { createEnv } from '../../src/envs/registry';
import { createRelay, RELAY_ID, type RelayTask } from '../../src/envs/relay';
import { CpuBackend } from '../../src/reference/cpuBackend';
import { checkWarmStart, fitCheckpoint, REPERTOIRE_SHARE, repertoireShortfalls } from '../../src/rl/warmStart';
import { ROOT } from '../cli/run';

const digit = (d: number) => RELAY_ID[String(d) as '0'];

describe('relay repertoire rates', () => {
  it('counts silence on known tasks and short messages among those sent (hand-built episodes)', () => {
    // copy protocol, 6 copies: the verbose message is 6 copies (NOTE first when the Solver knows)
    const env = createRelay({ digits: 3, channelNoise: 0.3, demoCopies: 6, flagAwareDemos: true });
    const tasks: RelayTask[] = [
      { secret: [1, 2, 3], j: 2, known: true }, { secret: [4, 5, 6], j: 1, known: true },
      { secret: [7, 8, 9], j: 3, known: false }, { secret: [0, 1, 2], j: 1, known: false },
    ];
    const sent = [[], [digit(4)], Array(6).fill(digit(9)), [digit(0)]];
    const states = tasks.map((t, i) => {
      const st = env.start(t, 0);
      env.applyTurn(st, 0, [[...sent[i], env.eos]]);
      return st;
    });
    const rates = Object.fromEntries(env.repertoire!(states).map((r) => [r.key, r.sampled]));
    expect(rates.silenceKnown).toBe(1 / 2); // of the two known tasks, one silent
    expect(rates.short).toBe(2 / 3); // of three sent: 1 copy (known), 6 copies (verbose), 1 copy
  });

  it("the demonstrations' rates are the demo mix's: demoSilence silent, 20% of the rest short", () => {
    for (const options of [{ demoCopies: 6 }, { demoCopies: 0 }]) {
      const env = createRelay({ digits: 3, demoSilence: 0.1, flagAwareDemos: true, ...options });
      const tasks = env.sampleTasks('train', 4000, 7, 0);
      const unplayed = tasks.map((t) => { const st = env.start(t, 0); env.applyTurn(st, 0, [[env.eos]]); return st; });
      const rates = Object.fromEntries(env.repertoire!(unplayed).map((r) => [r.key, r]));
      const known = tasks.filter((t) => t.known).length;
      // binomial: 4 standard deviations
      expect(Math.abs(rates.silenceKnown.demos - 0.1)).toBeLessThan(4 * Math.sqrt(0.1 * 0.9 / known));
      expect(Math.abs(rates.short.demos - 0.2)).toBeLessThan(4 * Math.sqrt(0.2 * 0.8 / (0.9 * tasks.length)));
      expect(rates.silenceKnown.sampled).toBe(1); // every hand-played message above was silent
    }
  });

  it('a verbose message longer than M counts as sent, cut to M (two Scouts, two digits each, M = 4)', () => {
    // the part message SECRET a b REPEAT a b is 6 tokens; sent, it is SECRET a b REPEAT: not short
    const env = createRelay({ digits: 4, scouts: 2, maxMessage: 4 });
    const tasks: RelayTask[] = [{ secret: [1, 2, 3, 4], j: 1, known: false }, { secret: [5, 6, 7, 8], j: 4, known: false }];
    const holderSent = [[RELAY_ID.SECRET, digit(1), digit(2), RELAY_ID.REPEAT], [RELAY_ID.DIGIT, digit(8)]];
    const states = tasks.map((t, i) => {
      const st = env.start(t, 0);
      const msgs = i === 0 ? [[...holderSent[i], env.eos], [env.eos]] : [[env.eos], [...holderSent[i], env.eos]];
      env.applyTurn(st, 0, msgs);
      return st;
    });
    const rates = Object.fromEntries(env.repertoire!(states).map((r) => [r.key, r]));
    expect(rates.short.sampled).toBe(1 / 2);
    // and the demos' rate is about the short formats shorter than 4 tokens: 20% x 2/3 of those sent
    const many = env.sampleTasks('train', 4000, 7, 0).map((t) => { const st = env.start(t, 0); env.applyTurn(st, 0, [[env.eos], [env.eos]]); return st; });
    const demo = env.repertoire!(many).find((r) => r.key === 'short')!.demos;
    expect(Math.abs(demo - 0.2 * 2 / 3)).toBeLessThan(4 * Math.sqrt(0.13 * 0.87 / (0.9 * 4000)));
  });

  it('several Scouts: every Scout sends the short formats at the same rate, holder or not (the demos do not say who speaks)', () => {
    const env = createRelay({ digits: 4, scouts: 4, maxMessage: 4, demoSilence: 0.1, flagAwareDemos: true });
    const counts = { holder: { short: 0, sent: 0 }, other: { short: 0, sent: 0 } };
    for (const d of env.demonstrations(20000, 3)) {
      if (d.tokens[1] !== RELAY_ID.SCOUT) continue;
      const view = d.tokens.slice(2, 6), j = d.tokens[7] - digit(0);
      const sent = d.tokens.slice(d.target.indexOf(1), -1); // the message, EOS dropped
      if (sent.length === 0) continue;
      const c = view.findIndex((x) => x !== RELAY_ID.MASK) === j - 1 ? counts.holder : counts.other;
      c.sent++;
      if (sent[0] !== RELAY_ID.SECRET && sent[0] !== RELAY_ID.NOTE) c.short++; // POS, DIGIT or a digit
    }
    const holder = counts.holder.short / counts.holder.sent, other = counts.other.short / counts.other.sent;
    expect(Math.abs(holder - 0.2)).toBeLessThan(4 * Math.sqrt(0.2 * 0.8 / counts.holder.sent));
    expect(Math.abs(other - 0.2)).toBeLessThan(4 * Math.sqrt(0.2 * 0.8 / counts.other.sent));
  });

  it('a rate short of REPERTOIRE_SHARE x the demos is named', () => {
    const r = (sampled: number) => ({ key: 'silenceKnown', label: 'silence on known tasks', sampled, demos: 0.1 });
    expect(repertoireShortfalls([r(REPERTOIRE_SHARE * 0.1)])).toEqual([]);
    expect(repertoireShortfalls([r(0.01)])).toEqual([r(0.01)]);
  });
});

/** Each shipped warm start's check, made once per preset (a few seconds each on the CPU). */
const checks = new Map<string, ReturnType<typeof checkOf>>();
function checkOf(name: string) {
  const preset = findPreset(name), config = presetConfig(preset), env = createEnv(config);
  const spec = presetSlots(preset).policy.warmStart;
  const fit = fitCheckpoint(readFileSync(join(ROOT, 'public/checkpoints', spec.file)), spec.file, config, env, { slot: 'policy', demo: spec.demo });
  if (!('weights' in fit)) throw new Error(fit.why);
  const backend = new CpuBackend();
  return checkWarmStart(backend, config, spec, fit.weights).then((c) => ({ ...c, target: spec.target! })).finally(() => backend.destroy());
}
const shipped = (name: string) => { if (!checks.has(name)) checks.set(name, checkOf(name)); return checks.get(name)!; };

describe('the shipped relay warm starts sample their repertoire at temperature 1', () => {
  for (const name of ['relay-silence', 'relay-noisy-dr', 'relay-scouts', 'relay-never-silent']) {
    it(name, async () => {
      const check = await shipped(name);
      expect(check.accuracy).toBeGreaterThanOrEqual(check.target);
      expect(check.repertoire, JSON.stringify(check.repertoire)).not.toBeNull();
      const short = repertoireShortfalls(check.repertoire!);
      expect(short, JSON.stringify(check.repertoire)).toEqual([]);
      // the never-silent warm start's demos hold no silence: nothing there for RL to find
      const silence = check.repertoire!.find((x) => x.key === 'silenceKnown')!;
      if (name === 'relay-never-silent') expect(silence.demos).toBe(0);
      else expect(silence.demos).toBeGreaterThan(0.05);
    }, 120_000);
  }
  // relay-scouts' holder once sampled short formats 0.04 (demos 0.15) while the demos gave them
  // to the holder only; with every Scout drawing them (src/envs/relay.ts demoMessage) it samples 0.09
  it('relay-scouts samples its short formats', async () => {
    const short = (await shipped('relay-scouts')).repertoire!.find((r) => r.key === 'short')!;
    expect(short.sampled).toBeGreaterThanOrEqual(REPERTOIRE_SHARE * short.demos);
  }, 120_000);
});
