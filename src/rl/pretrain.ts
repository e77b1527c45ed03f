// Warm start (docs/rl.md section 9): cross-entropy on the environment's verbose
// demonstrations, only on the tokens a policy would generate.
import type { Backend } from '../backend';
import type { Demonstration, Environment } from '../envs/types';
import { GPT } from '../model/gpt';
import { AdamW } from '../model/optimizer';
import type { GPTConfig } from '../model/params';

export interface PretrainConfig {
  steps: number;
  batchSize: number;
  lr: number; // peak; linear warmup over 5% of steps, then cosine to 10%
  seed: number;
  demos: number; // size of the demonstration pool
  slot?: string; // whose demonstrations (envs with several policy slots)
}

export const PRETRAIN_DEFAULTS: PretrainConfig = { steps: 600, batchSize: 64, lr: 3e-3, seed: 0, demos: 20000 };

function lrAt(cfg: PretrainConfig, step: number): number {
  const warm = Math.max(1, Math.floor(cfg.steps * 0.05));
  if (step < warm) return (cfg.lr * (step + 1)) / warm;
  const p = (step - warm) / Math.max(1, cfg.steps - warm);
  return cfg.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p)));
}

/**
 * When to stop early: `check(stepsDone)` is awaited after every `every` steps (never after the
 * last, which ends anyway); true stops pretraining there. The model holds the weights of that step.
 */
export interface PretrainStop { every: number; check(stepsDone: number): Promise<boolean> }

export interface PretrainResult { loss: number; steps: number }

/**
 * Trains `model` in place on demonstrations; onProgress gets (step, mean loss per target token).
 * The schedule spans `cfg.steps`; `stop` may end it sooner. Deterministic from `cfg.seed`.
 */
export async function pretrain(backend: Backend, model: GPT, env: Environment, cfg: PretrainConfig,
  onProgress?: (step: number, loss: number) => void, stop?: PretrainStop): Promise<PretrainResult> {
  const demos: Demonstration[] = env.demonstrations(cfg.demos, cfg.seed, cfg.slot);
  if (demos.length === 0) throw new Error(`${env.id} has no demonstrations${cfg.slot ? ` for slot "${cfg.slot}"` : ''}`);
  const T = model.config.blockSize - 1, B = cfg.batchSize, V = model.config.vocabSize;
  const opt = new AdamW(backend, model, { lr: cfg.lr, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.01, gradClip: 1 });
  const targets = backend.alloc(B * T, 'i32'), losses = backend.alloc(B * T), dloss = backend.alloc(B * T);
  const tok = new Int32Array(B * T), tgt = new Int32Array(B * T), dl = new Float32Array(B * T);
  let last = NaN, done = 0;
  for (let step = 0; step < cfg.steps; step++) {
    tok.fill(0); tgt.fill(-1); dl.fill(0);
    let count = 0;
    for (let i = 0; i < B; i++) {
      const d = demos[(step * B + i) % demos.length];
      for (let t = 0; t < d.tokens.length; t++) tok[i * T + t] = d.tokens[t];
      for (let t = 1; t < d.tokens.length; t++) if (d.target[t]) { tgt[i * T + t - 1] = d.tokens[t]; count++; }
    }
    for (let i = 0; i < B * T; i++) if (tgt[i] >= 0) dl[i] = 1 / count;
    backend.write(targets, tgt);
    backend.write(dloss, dl);
    model.zeroGrad();
    const logits = model.forward(tok, B, T);
    backend.crossEntropyForward(losses, logits, targets, B * T, V);
    backend.crossEntropyBackward(model.dlogits(), dloss, logits, targets, B * T, V);
    model.backward();
    opt.config = { ...opt.config, lr: lrAt(cfg, step) };
    opt.measure();
    opt.apply();
    backend.submit();
    const checkHere = stop !== undefined && step + 1 < cfg.steps && (step + 1) % stop.every === 0;
    if (step % 25 === 0 || step === cfg.steps - 1 || checkHere) {
      const l = await backend.read(losses);
      let s = 0;
      for (let i = 0; i < l.length; i++) s += l[i];
      last = s / count;
      onProgress?.(step, last);
    }
    done = step + 1;
    if (checkHere && await stop!.check(done)) break;
  }
  opt.destroy();
  for (const t of [targets, losses, dloss]) backend.free(t);
  return { loss: last, steps: done };
}

export function modelConfigFor(env: Environment, c: { nLayer: number; nHead: number; nEmbd: number }): GPTConfig {
  return { nLayer: c.nLayer, nHead: c.nHead, nEmbd: c.nEmbd, blockSize: env.blockSize, vocabSize: env.vocab.length };
}
