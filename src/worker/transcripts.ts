// The generated turns of an episode for the transcript viewer: each sampled
// token with its text and its log-prob at sampling time.
import type { Environment } from '../envs/types';
import type { Sequence } from '../rl/rollout';
import type { TranscriptTurn } from './protocol';

export function transcriptTurns(seqs: Sequence[], env: Pick<Environment, 'vocab' | 'eos'>): TranscriptTurn[] {
  return seqs.map((s) => ({
    role: s.role, turn: s.turn, agent: s.agent, message: s.message,
    ids: s.generated.slice(), tokens: s.generated.map((id) => env.vocab[id] ?? `#${id}`), logp: s.logp.slice(),
    silent: s.message && s.generated[0] === env.eos,
  }));
}
