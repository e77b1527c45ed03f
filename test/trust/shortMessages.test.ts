// The shipped relay-silence warm starts (3, 4 and 5 digits): sampled at temperature 1 on held-out unknown tasks,
// their short messages hold the asked digit most of the time, as their demonstrations' always do. The first 4- and
// 5-digit warm starts passed their pretraining check (greedy accuracy, the repertoire's rates) with short messages
// that held it 0.40 and 0.39 of the time, and RL compressed toward those: the 5-digit cell collapsed
// (docs/robustness.md). The oracle is each task's own secret.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortMessageRates } from './shortMessages';

const DIR = join(import.meta.dirname, '..', '..', 'public', 'checkpoints');

describe('the shipped clean-relay warm starts\' short messages hold the asked digit', () => {
  for (const [digits, file] of [[3, 'relay-warm.safetensors'], [4, 'relay-warm-digits4.safetensors'], [5, 'relay-warm-digits5.safetensors']] as const) {
    it(`${digits} digits (${file})`, async () => {
      const r = await shortMessageRates(digits, new Uint8Array(readFileSync(join(DIR, file))));
      expect(r.unknown).toBeGreaterThan(300); // 512 held-out tasks, about 70% unknown
      expect(r.short, 'short messages sampled at all').toBeGreaterThan(30); // the repertoire's share holds
      expect(r.shortHolding / r.short, `${r.shortHolding} of ${r.short} short messages hold s_j`).toBeGreaterThanOrEqual(0.8);
      expect(r.fullHolding).toBe(r.spoke - r.short); // a full message always holds it
    }, 60_000);
  }
});
