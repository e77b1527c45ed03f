import { describe, expect, it } from 'vitest';
import { detectDegenerate, type DegenerateRecord } from '../../src/rl/degenerate';

/** A stream from per-eval columns (step = 10 x index). */
function stream(cols: { reward: number[]; actionRate: number[]; messageRate: number[]; task: number[] }): DegenerateRecord[] {
  return cols.task.map((task, i) => ({ step: 10 * i, reward: cols.reward[i], actionRate: cols.actionRate[i], messageRate: cols.messageRate[i], task }));
}

describe('detectDegenerate', () => {
  it('flags actions collapsing to zero while meals fall, naming the numbers', () => {
    // first 3 evals: actions 0.62, meals 0.8; last 3: actions 0.03, meals 0; reward -3 -> -0.3 (the hack pays)
    const records = stream({
      reward: [-3, -3, -3, -2, -1, -0.3, -0.3, -0.3],
      actionRate: [0.62, 0.62, 0.62, 0.4, 0.2, 0.03, 0.03, 0.03],
      messageRate: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      task: [0.8, 0.8, 0.8, 0.5, 0.2, 0, 0, 0],
    });
    const v = detectDegenerate(records, { taskLabel: 'meals per philosopher' });
    expect(v.degenerate).toBe(true);
    expect(v.reason).toContain('actions fell from 0.62 to 0.03 per philosopher-round');
    expect(v.reason).toContain('meals per philosopher fell from 0.80 to 0.00');
    expect(v.reason).toContain('reward rose from -3.00 to -0.30');
    expect(v.reason).toContain('steps 0-20 vs 50-70');
    expect(v.reason).not.toContain('messages');
  });

  it('flags a collapse after a peak (the reference is the best window, not the first)', () => {
    const records = stream({
      reward: [-5, -5, -5, -2, -2, -2, -1, -1, -1],
      actionRate: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.05, 0.05, 0.05],
      messageRate: [0.9, 0.9, 0.9, 0.8, 0.8, 0.8, 0.02, 0.02, 0.02],
      task: [0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.1, 0.1, 0.1],
    });
    const v = detectDegenerate(records);
    expect(v.degenerate).toBe(true);
    expect(v.reason).toContain('actions fell from 0.50 to 0.05');
    expect(v.reason).toContain('messages fell from 0.80 to 0.02');
    expect(v.reason).toContain('the task measure fell from 0.90 to 0.10');
    expect(v.reason).toContain('steps 30-50 vs 60-80');
  });

  it('flags reward rising while the task measure falls, even with activity steady', () => {
    const records = stream({
      reward: [1, 1, 1, 2, 2, 2],
      actionRate: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      messageRate: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      task: [0.7, 0.7, 0.7, 0.4, 0.4, 0.4],
    });
    const v = detectDegenerate(records);
    expect(v.degenerate).toBe(true);
    expect(v.reason).toContain('reward rose from 1.00 to 2.00 while the task measure fell from 0.70 to 0.40');
  });

  it('does not flag a healthy run: reward and task rising together while actions shrink a little', () => {
    const records = stream({
      reward: [-6, -5, -4, -3, -2, -1.5, -1.2, -1.1],
      actionRate: [0.6, 0.55, 0.5, 0.45, 0.4, 0.4, 0.4, 0.4],
      messageRate: [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.4, 0.4],
      task: [0.2, 0.3, 0.4, 0.6, 0.7, 0.8, 0.85, 0.9],
    });
    expect(detectDegenerate(records).degenerate).toBe(false);
  });

  it('does not flag messages falling to zero while the task holds (the point of lambda_tok)', () => {
    const records = stream({
      reward: [0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 0.95, 0.95],
      actionRate: [0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4, 0.4],
      messageRate: [0.9, 0.8, 0.5, 0.2, 0.05, 0, 0, 0],
      task: [0.9, 0.9, 0.88, 0.9, 0.89, 0.9, 0.88, 0.89],
    });
    const v = detectDegenerate(records);
    expect(v.degenerate).toBe(false);
    expect(v.reason).toContain('held');
  });

  it('does not flag a run that merely got worse (task and reward down, activity steady)', () => {
    const records = stream({
      reward: [-1, -1, -1, -3, -3, -3],
      actionRate: [0.5, 0.5, 0.5, 0.6, 0.6, 0.6],
      messageRate: [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
      task: [0.8, 0.8, 0.8, 0.5, 0.5, 0.5],
    });
    expect(detectDegenerate(records).degenerate).toBe(false);
  });

  it('waits for two windows of evals', () => {
    const records = stream({ reward: [0, 1], actionRate: [0.5, 0], messageRate: [0.5, 0], task: [1, 0] });
    const v = detectDegenerate(records);
    expect(v.degenerate).toBe(false);
    expect(v.reason).toContain('too few');
    expect(detectDegenerate(records, { window: 1 }).degenerate).toBe(true);
  });
});
