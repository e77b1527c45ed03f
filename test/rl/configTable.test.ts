// The one config table: what is derived from it (DEFAULTS, LIVE_FIELDS, the page's groups,
// each field's env) against lists written out by hand from docs/rl.md section 10 and docs/page.md.
import { describe, expect, it } from 'vitest';
import { DEFAULTS, ENV_IDS, FIELDS, fieldsInGroup, LIVE_FIELDS, type RunConfig } from '../../src/config';
import { envIds, fieldEnv } from '../../src/store/modelInfo';

describe('the config table', () => {
  it('live fields are the reward settings, G, P, the optimizer/objective knobs and the step count (Continue raises it), nothing else', () => {
    expect([...LIVE_FIELDS].sort()).toEqual([
      'steps', 'lambdaTok', 'lambdaTurn', 'lambdaRep', 'overlongCache', 'overlongPenalty', 'lambdaMode', 'budget', 'dualEta', 'lambdaMax', 'lambdaStart', 'lambdaHold', 'groupSize', 'promptsPerStep',
      'lr', 'epsLow', 'epsHigh', 'delta', 'beta', 'temperature', 'minibatches', 'advantage', 'dynamicSampling', 'refillRounds', 'gradClip',
    ].sort());
  });

  it('the page groups, in table order', () => {
    expect(fieldsInGroup('algorithm')).toEqual(['algorithm', 'groupSize', 'promptsPerStep', 'minibatches', 'lr', 'epsLow', 'epsHigh', 'delta', 'beta', 'temperature', 'advantage', 'dynamicSampling', 'refillRounds', 'gradClip', 'weightDecay']);
    expect(fieldsInGroup('evaluation')).toEqual(['evalEvery', 'evalEpisodes', 'steps', 'seed']);
    expect(fieldsInGroup('model')).toEqual(['nLayer', 'nHead', 'nEmbd']);
    expect(fieldsInGroup('env', 'relay')).toEqual(['digits', 'pKnown', 'pKnownTrain', 'maxMessage', 'channelNoise', 'scouts']);
    expect(fieldsInGroup('env', 'addition')).toEqual(['topology']);
    expect(fieldsInGroup('env', 'philosophers')).toEqual(['philosophers', 'rounds', 'philMessage', 'mealReward', 'deadlockPenalty', 'starvePenalty', 'actionCost', 'curriculum', 'curriculumThreshold', 'curriculumPatience']);
  });

  it('a field belongs to an env exactly when it is in the env group (the page no longer reads help text)', () => {
    for (const k of Object.keys(FIELDS) as (keyof RunConfig)[]) expect(FIELDS[k].group === 'env', k).toBe(FIELDS[k].env !== undefined);
    expect(fieldEnv('curriculumThreshold')).toBe('philosophers');
    expect(fieldEnv('channelNoise')).toBe('relay');
    expect(fieldEnv('lr')).toBeNull();
    expect(envIds()).toEqual(['relay', 'addition', 'philosophers']);
    expect(ENV_IDS).toEqual(FIELDS.env.kind === 'enum' ? FIELDS.env.values : []);
  });

  it('every default is inside its own range (a few by hand: G 8, P 32, relay k 3, channel noise 0, one Scout)', () => {
    expect(DEFAULTS).toMatchObject({ groupSize: 8, promptsPerStep: 32, digits: 3, channelNoise: 0, scouts: 1, env: 'relay', algorithm: 'gspo' });
    for (const [k, f] of Object.entries(FIELDS)) {
      const v = DEFAULTS[k as keyof RunConfig];
      if (f.kind === 'enum') expect(f.values, k).toContain(v);
      else expect(typeof v === 'number' && v >= f.min && v <= f.max, k).toBe(true);
    }
  });
});
