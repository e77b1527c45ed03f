// The loss table (src/contract/losses.ts): every row has every part, the config, the page,
// the numpy oracle and the export read the same rows, and the export's names are
// real TRL / verl names.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, FIELDS, validateConfig } from '../../src/config';
import { mappingRows, trlOptions, verlOptions } from '../../src/export/mapping';
import { TRL_OPTIONS, VERL_KEYS, VERL_LOSS_MODES } from '../../src/export/optionNames';
import { AGG_CODE, CLIP_CODE, LEVEL_CODE, LOSS_IDS, LOSSES, twinSettings, type LossRow } from '../../src/contract/losses';
import { algorithmExplain } from '../../src/ui/explain';
import { optionLabel } from '../../src/ui/labels';

// The value sets of the targets, read at the commits optionNames.json records (TRL's GRPOConfig loss_type and
// importance_sampling_level; verl's agg_loss modes).
const TRL_LOSS_TYPES = ['grpo', 'dr_grpo', 'dapo', 'bnpo', 'cispo', 'sapo', 'luspo', 'vespo'];
const TRL_IS_LEVELS = ['token', 'sequence'];
const VERL_AGG_MODES = ['token-mean', 'token-sum', 'seq-mean-token-sum', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'];

/** Every part a row must have, with a check that it is there and well-formed. */
const PARTS: Record<string, (r: LossRow) => boolean> = {
  label: (r) => typeof r.label === 'string' && r.label.length > 2,
  explain: (r) => typeof r.explain === 'string' && r.explain.length > 40,
  level: (r) => r.level in LEVEL_CODE,
  clip: (r) => r.clip in CLIP_CODE,
  aggregation: (r) => r.aggregation in AGG_CODE,
  advantage: (r) => ['group', 'batch', 'none'].includes(r.advantage),
  eps: (r) => Array.isArray(r.eps) && r.eps.length === 2 && r.eps.every((e) => e > 0 && e < 1),
  formula: (r) => typeof r.formula === 'string' && r.formula.startsWith('L = '),
  'trl.loss_type': (r) => TRL_LOSS_TYPES.includes(r.trl?.loss_type),
  'trl.importance_sampling_level': (r) => TRL_IS_LEVELS.includes(r.trl?.importance_sampling_level),
  'trl.delta': (r) => typeof r.trl?.delta === 'boolean' && r.trl.delta === (r.clip === 'two-sided'),
  'trl.gap': (r) => typeof r.trl?.gap === 'string',
  'verl.loss_mode': (r) => VERL_LOSS_MODES.has(r.verl?.loss_mode),
  'verl.loss_agg_mode': (r) => VERL_AGG_MODES.includes(r.verl?.loss_agg_mode),
  'verl.gap': (r) => typeof r.verl?.gap === 'string',
};

const missing = (r: LossRow) => Object.entries(PARTS).filter(([, ok]) => !ok(r)).map(([k]) => k);

describe('the loss table', () => {
  it.each(LOSS_IDS)('%s has every part', (id) => {
    expect(missing(LOSSES[id])).toEqual([]);
  });

  it('the parts checked are every part a row has (a part added to the rows is checked too)', () => {
    for (const id of LOSS_IDS) {
      const keys = Object.entries(LOSSES[id]).flatMap(([k, v]) => (typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).map((j) => `${k}.${j}`) : [k]));
      expect(keys.sort(), id).toEqual(Object.keys(PARTS).sort());
    }
  });

  it('a twin run changes the algorithm, and the clip range only across the sequence / token scale', () => {
    const gspo = { algorithm: 'gspo', epsLow: 3e-4, epsHigh: 5e-4 }, grpo = { algorithm: 'grpo', epsLow: 0.1, epsHigh: 0.3 };
    expect(twinSettings(gspo, 'grpo')).toEqual({ algorithm: 'grpo', epsLow: 0.2, epsHigh: 0.2 }); // GRPO's published range
    expect(twinSettings(gspo, 'gspo-token')).toEqual({ algorithm: 'gspo-token', epsLow: 3e-4, epsHigh: 5e-4 }); // the run's own
    expect(twinSettings(grpo, 'dapo')).toEqual({ algorithm: 'dapo', epsLow: 0.1, epsHigh: 0.3 });
    expect(twinSettings(grpo, 'gspo')).toEqual({ algorithm: 'gspo', epsLow: 3e-4, epsHigh: 4e-4 });
    expect(() => twinSettings({ ...grpo, algorithm: 'ppo' }, 'gspo')).toThrow(/unknown loss variant "ppo"/);
  });

  it('a row lacking a part is caught (the check can fail)', () => {
    const { formula: _f, ...noFormula } = LOSSES.dapo;
    expect(missing(noFormula as LossRow)).toEqual(['formula']);
    expect(missing({ ...LOSSES.dapo, trl: { ...LOSSES.dapo.trl, loss_type: 'nope' } } as unknown as LossRow)).toEqual(['trl.loss_type']);
    expect(missing({ ...LOSSES.dapo, verl: { loss_mode: 'vanilla', loss_agg_mode: 'token-mean' } } as unknown as LossRow)).toEqual(['verl.gap']);
  });

  it('a target that does not aggregate as the row says must say so in its gap', () => {
    for (const id of LOSS_IDS) {
      const r = LOSSES[id];
      if (r.verl.loss_agg_mode !== r.aggregation) expect(r.verl.gap, id).not.toBe('');
      if (r.verl.loss_mode === 'gspo') expect(r.verl.loss_agg_mode, `${id}: verl's gspo loss forces seq-mean-token-mean`).toBe('seq-mean-token-mean');
    }
  });

  it('the config takes every row id as algorithm, and the old values stay valid', () => {
    const f = FIELDS.algorithm;
    expect(f.kind === 'enum' && [...f.values]).toEqual(LOSS_IDS);
    expect(DEFAULTS.algorithm).toBe('gspo');
    for (const id of LOSS_IDS) expect(validateConfig({ algorithm: id }).algorithm).toBe(id);
    expect(() => validateConfig({ algorithm: 'ppo' })).toThrow(`algorithm must be one of ${LOSS_IDS.join(', ')}; got "ppo"`);
    expect(LOSS_IDS.slice(0, 2)).toEqual(['gspo', 'grpo']); // the values the playground always had
  });

  it('the page shows each row\'s own label and explanation', () => {
    for (const id of LOSS_IDS) {
      expect(optionLabel('algorithm', id)).toBe(LOSSES[id].label);
      expect(algorithmExplain(id)).toBe(LOSSES[id].explain);
    }
  });

  it('the numpy oracle\'s VARIANTS are the table\'s (level, clip, aggregation)', (ctx) => {
    const r = spawnSync('python3', ['-c', 'import json,sys; sys.path.insert(0,"scripts"); from gspo_ref import VARIANTS; print(json.dumps(VARIANTS))'], { encoding: 'utf8' });
    if (r.status !== 0 && /No module named 'numpy'/.test(r.stderr) && process.env.CI !== 'true') ctx.skip();
    expect(r.status, r.stderr).toBe(0);
    const py = JSON.parse(r.stdout) as Record<string, [string, string, string]>;
    expect(Object.fromEntries(LOSS_IDS.map((id) => [id, [LOSSES[id].level, LOSSES[id].clip, LOSSES[id].aggregation]]))).toEqual(py);
  });
});

describe('the export of every variant', () => {
  for (const id of LOSS_IDS) {
    it(`${id}: the table's names, real option names, and a note saying what each target cannot express`, () => {
      const c = validateConfig({ algorithm: id, advantage: 'group', delta: 3 }), row = LOSSES[id];
      const trl = trlOptions(c), verl = verlOptions(c);
      expect(Object.keys(trl).filter((k) => !TRL_OPTIONS.has(k))).toEqual([]);
      expect(Object.keys(verl).filter((k) => !VERL_KEYS.has(k))).toEqual([]);
      expect(trl.loss_type).toBe(row.trl.loss_type);
      expect(trl.importance_sampling_level).toBe(row.trl.importance_sampling_level);
      expect(trl.scale_rewards).toBe('group');
      expect(verl['actor_rollout_ref.actor.policy_loss.loss_mode']).toBe(row.verl.loss_mode);
      expect(verl['actor_rollout_ref.actor.loss_agg_mode']).toBe(row.verl.loss_agg_mode);
      expect(verl['algorithm.norm_adv_by_std_in_grpo']).toBe(true);
      if (row.clip === 'two-sided') {
        expect(trl.delta).toBe(3);
        expect(verl['actor_rollout_ref.actor.clip_ratio_c']).toBe(3);
      } else {
        expect('delta' in trl).toBe(false);
        expect(verl['actor_rollout_ref.actor.clip_ratio_c']).toBe(1e9);
      }
      expect(trl.epsilon_high).toBe(row.clip === 'cispo' ? 1 + c.epsHigh : c.epsHigh);
      const rows = mappingRows(c);
      const note = rows.find((r) => r.field.startsWith('algorithm'))!.note!;
      expect(note).toContain(row.formula);
      expect(note).toMatch(row.trl.gap ? /TRL cannot express this exactly/ : /TRL expresses it exactly/);
      expect(note).toMatch(row.verl.gap ? /verl cannot express this exactly/ : /verl expresses it exactly/);
      const adv = rows.find((r) => r.field === 'advantage')!.note ?? '';
      if (row.advantage !== 'group') expect(adv).toMatch(new RegExp(`defined with advantage ${row.advantage}`));
      else expect(adv).toBe('');
    });
  }

  it('Dr. GRPO with advantage none: scale_rewards none, no std in verl', () => {
    const c = validateConfig({ algorithm: 'dr-grpo', advantage: 'none' });
    expect(trlOptions(c)).toMatchObject({ loss_type: 'dr_grpo', scale_rewards: 'none' });
    expect(verlOptions(c)['algorithm.norm_adv_by_std_in_grpo']).toBe(false);
  });
});
