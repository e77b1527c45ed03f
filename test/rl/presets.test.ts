// envs/presets.ts: every preset is a valid config; the presets say what their names promise.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, validateConfig } from '../../src/config';
import { InputError } from '../../src/contract/errors';
import { findPreset, presetConfig, PRESETS } from '../../src/envs/presets';

describe('presets', () => {
  it('has the presets the project names, with unique names', () => {
    const names = PRESETS.map((p) => p.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of ['relay-silence', 'relay-budget', 'relay-grpo', 'relay-no-groupnorm', 'relay-never-silent']) expect(names).toContain(n);
  });

  it('every preset config validates, on its own and over the defaults', () => {
    for (const p of PRESETS) {
      expect(() => validateConfig(p.config as Record<string, unknown>), p.name).not.toThrow();
      const c = presetConfig(p);
      expect(c.nEmbd % c.nHead, p.name).toBe(0);
      for (const [k, v] of Object.entries(p.config)) expect((c as unknown as Record<string, unknown>)[k], `${p.name}.${k}`).toBe(v);
      expect(p.title.length).toBeGreaterThan(0);
      expect(p.explain.length).toBeGreaterThan(0);
      expect(p.warmStart.file).toMatch(/\.safetensors$/);
    }
  });

  it('findPreset finds by name; an unknown name is an InputError listing the presets', () => {
    expect(findPreset('relay-grpo').name).toBe('relay-grpo');
    let msg = '';
    try { findPreset('relay-nope'); } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      msg = (e as Error).message;
    }
    expect(msg).toContain('relay-nope');
    for (const p of PRESETS) expect(msg).toContain(p.name);
  });

  it('relay-budget uses the dual lambda starting from 0', () => {
    const c = presetConfig(findPreset('relay-budget'));
    expect(c.lambdaMode).toBe('budget');
    expect(c.lambdaTok).toBe(0);
    expect(c.budget).toBeGreaterThan(0);
    expect(c.dualEta).toBeGreaterThan(0);
    expect(c.lambdaMax).toBeGreaterThan(0);
  });

  it('relay-never-silent starts from a warm start made with demoSilence 0 (its own file)', () => {
    const p = findPreset('relay-never-silent');
    expect(p.warmStart.demo.demoSilence).toBe(0);
    expect(p.warmStart.file).not.toBe(findPreset('relay-silence').warmStart.file);
    expect(findPreset('relay-silence').warmStart.demo.demoSilence ?? 0).toBeGreaterThan(0);
  });

  it('relay-grpo and relay-no-groupnorm change what their names say', () => {
    const g = presetConfig(findPreset('relay-grpo'));
    expect(g.algorithm).toBe('grpo');
    expect(g.epsLow).toBe(0.2);
    expect(g.epsHigh).toBe(0.2);
    expect(presetConfig(findPreset('relay-no-groupnorm')).advantage).toBe('none');
    expect(presetConfig(findPreset('relay-silence')).algorithm).toBe('gspo');
  });

  it('presetConfig layers validated overrides (strings parsed, unknown keys rejected)', () => {
    const p = findPreset('relay-silence');
    const c = presetConfig(p, { groupSize: '4', seed: 3 });
    expect(c.groupSize).toBe(4);
    expect(c.seed).toBe(3);
    expect(c.steps).toBe(p.config.steps);
    expect(c.nLayer).toBe(DEFAULTS.nLayer);
    expect(() => presetConfig(p, { bogus: 1 })).toThrow(/bogus/);
    expect(() => presetConfig(p, { groupSize: 0 })).toThrow(/groupSize/);
  });
});
