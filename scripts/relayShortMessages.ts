// What a relay-silence warm start's short messages carry: on held-out tasks the Solver does not know, sampled
// at temperature 1 (as RL samples), the share of the Scout's messages shorter than the verbose one that hold the
// asked digit s_j. RL compresses toward the short messages it samples, so where they mostly miss s_j the lesson
// collapses (docs/robustness.md, the 5-digit cell). `npx tsx scripts/relayShortMessages.ts DIGITS [checkpoint]`
// (default public/checkpoints/relay-warm-digits<DIGITS>.safetensors, or relay-warm.safetensors at 3).
import { readFileSync } from 'node:fs';
import { shortMessageRates } from '../test/trust/shortMessages';
const digits = Number(process.argv[2] ?? 5);
const file = process.argv[3] ?? `public/checkpoints/${digits === 3 ? 'relay-warm' : `relay-warm-digits${digits}`}.safetensors`;
const r = await shortMessageRates(digits, new Uint8Array(readFileSync(file)));
console.log(`${file}: ${r.unknown} unknown tasks, ${r.spoke} messages sent, ${r.short} short; short messages holding s_j: ${r.shortHolding} (${(r.shortHolding / Math.max(1, r.short)).toFixed(2)}); full ones: ${(r.fullHolding / Math.max(1, r.spoke - r.short)).toFixed(2)}`);
process.exit(0);
