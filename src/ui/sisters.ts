// Guided comparisons: each preset's sister presets, the one thing that differs
// between them, and what to look at. A sister that is not among the presets
// (yet) is left out, so the table may name presets that come later.
import { PRESETS } from '../envs/presets';

export interface Sister { preset: string; label: string; watch: string }

const PAIRS: { a: string; b: string; aLabel: string; bLabel: string; watch: string }[] = [
  { a: 'relay-silence', b: 'relay-grpo', aLabel: 'GSPO', bLabel: 'GRPO', watch: 'the clip fraction and ratio range: one ratio per message vs one per token' },
  { a: 'relay-silence', b: 'relay-no-groupnorm', aLabel: 'group normalization', bLabel: 'no std (Dr. GRPO)', watch: 'how fast tokens fall and the grad norm: without the std the update scales with the reward' },
  { a: 'relay-noisy', b: 'relay-noisy-dr', aLabel: 'group normalization', bLabel: 'no std (Dr. GRPO)', watch: 'learning on a noisy channel with and without the std' },
  { a: 'relay-noisy', b: 'relay-silence', aLabel: 'a noisy channel', bLabel: 'a clean channel', watch: 'how many tokens a noisy channel needs for the same accuracy' },
];

const known = (name: string) => PRESETS.some((p) => p.name === name);

/** The sisters of `preset` that exist, each labelled by what it changes. */
export function sistersOf(preset: string): Sister[] {
  const out: Sister[] = [];
  for (const p of PAIRS) {
    if (!known(p.a) || !known(p.b)) continue;
    if (p.a === preset) out.push({ preset: p.b, label: `${p.bLabel} instead of ${p.aLabel}`, watch: p.watch });
    else if (p.b === preset) out.push({ preset: p.a, label: `${p.aLabel} instead of ${p.bLabel}`, watch: p.watch });
  }
  return out;
}
