// The shareable URL: round trips, and bad parameters reported (naming them and why) and not applied.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, FIELDS, validateConfig, type RunConfig } from '../../src/config';
import { findPreset, presetConfig, PRESETS } from '../../src/envs/presets';
import { decodeSetup, encodeSetup, overridesOf, URL_VERSION } from '../../src/store/urlState';
import { LOSS_IDS } from '../../src/contract/losses';

const applied = (search: string) => { const d = decodeSetup(search); return { ...d, config: presetConfig(findPreset(d.preset), d.overrides) }; };

describe('URL state', () => {
  it('a preset with no changes is just v and preset', () => {
    for (const p of PRESETS) expect(encodeSetup(p.name, presetConfig(p))).toBe(`v=${URL_VERSION}&preset=${p.name}`);
  });

  it('round-trips configs that differ from the preset in many fields (numbers exactly, enums)', () => {
    const p = findPreset('relay-budget');
    const changed: Partial<RunConfig> = { lambdaTok: 0.123456789, groupSize: 5, lr: 1.5e-5, algorithm: 'grpo', advantage: 'batch', budget: 2.5, dualEta: 0.0125, nEmbd: 48, nHead: 3, seed: 2 ** 31 - 1, pKnown: 0 };
    const config = validateConfig(changed as Record<string, unknown>, presetConfig(p));
    const q = encodeSetup(p.name, config);
    const back = applied(q);
    expect(back.problems).toEqual([]);
    expect(back.preset).toBe('relay-budget');
    expect(back.config).toEqual(config);
    // only the changed fields are in the query, in FIELDS order
    const keys = [...new URLSearchParams(q).keys()];
    expect(keys.slice(0, 2)).toEqual(['v', 'preset']);
    expect(keys.slice(2).sort()).toEqual(Object.keys(changed).sort());
    const order = Object.keys(FIELDS);
    expect(keys.slice(2)).toEqual([...keys.slice(2)].sort((a, b) => order.indexOf(a) - order.indexOf(b)));
  });

  it('overridesOf gives what init() needs to rebuild the config from the preset', () => {
    const p = findPreset('relay-grpo');
    const config = validateConfig({ groupSize: 3, temperature: 0.7 }, presetConfig(p));
    expect(overridesOf(p.name, config)).toEqual({ groupSize: 3, temperature: 0.7 });
    expect(presetConfig(p, overridesOf(p.name, config))).toEqual(config);
  });

  it('reports out-of-range, malformed, unknown and repeated parameters by name, applies the rest', () => {
    const d = applied('?v=1&preset=relay-silence&groupSize=999&lr=abc&bogus=1&lambdaTok=0.25&lambdaTok=0.5&promptsPerStep=4.5&algorithm=ppo&temperature=0.5');
    expect(d.preset).toBe('relay-silence');
    const base = presetConfig(findPreset('relay-silence'));
    expect(d.config).toEqual({ ...base, lambdaTok: 0.25, temperature: 0.5 });
    const text = d.problems.join('\n');
    expect(d.problems).toHaveLength(6);
    expect(text).toMatch(/groupSize must be in \[1, 64\]; got 999; not applied/);
    expect(text).toMatch(/lr must be a number in \[0, 0\.1\]; got "abc"; not applied/);
    expect(text).toMatch(/unknown parameter "bogus"/);
    expect(text).toMatch(/lambdaTok is given 2 times; the first \(0\.25\) is used/);
    expect(text).toMatch(/promptsPerStep must be an integer/);
    expect(text).toMatch(new RegExp(`algorithm must be one of ${LOSS_IDS.join(', ')}; got "ppo"`));
  });

  it('an unknown preset or version is reported and the defaults are used; fields together (nEmbd % nHead) are checked', () => {
    const a = applied('?v=7&preset=nope&lambdaTok=0.3');
    expect(a.preset).toBe('relay-silence');
    expect(a.config.lambdaTok).toBe(0.3);
    expect(a.problems.join('\n')).toMatch(/v=7: this page reads version 1 links/);
    expect(a.problems.join('\n')).toMatch(/preset "nope" is not one of/);
    const b = applied('?preset=relay-silence&nEmbd=30&nHead=4&groupSize=2');
    expect(b.config.nEmbd).toBe(presetConfig(findPreset('relay-silence')).nEmbd);
    expect(b.config.nHead).toBe(presetConfig(findPreset('relay-silence')).nHead);
    expect(b.config.groupSize).toBe(2);
    expect(b.problems).toEqual(["nEmbd (30) must be divisible by nHead (4); nEmbd not applied"]); // the field it names first; nHead=4 fits the rest
  });

  it('recipe=off round-trips; the default (the recipe at Start) writes nothing; another value is named and the default kept', () => {
    const cfg = presetConfig(findPreset('relay-noisy-dr'));
    expect(encodeSetup('relay-noisy-dr', cfg, null, false, false)).toBe(`v=${URL_VERSION}&preset=relay-noisy-dr&recipe=off`);
    expect(decodeSetup(`v=${URL_VERSION}&preset=relay-noisy-dr&recipe=off`)).toMatchObject({ recipeAtStart: false, problems: [] });
    expect(decodeSetup(`v=${URL_VERSION}&preset=relay-noisy-dr`).recipeAtStart).toBe(true);
    const bad = decodeSetup(`v=${URL_VERSION}&preset=relay-noisy-dr&recipe=no`);
    expect(bad.recipeAtStart).toBe(true);
    expect(bad.problems).toEqual(['recipe=no: the one value read is recipe=off; off the calibrated point Start applies the recipe']);
  });

  it('an empty query is the default preset with no problems', () => {
    const d = applied('');
    expect(d).toMatchObject({ preset: 'relay-silence', problems: [], overrides: {} });
    expect(d.config.groupSize).toBe(DEFAULTS.groupSize);
  });
});
