// What the export needs of an environment: its toy task as Python (a seeded
// dataset generator and the episode's outcome for one completion). TRL and verl
// train one policy on prompt -> completion, so each env is exported as that
// policy's single turn, with the other agents as fixed rules (docs/export.md).
import type { RunConfig } from '../../config';

export interface EnvPython {
  /** Python: constants, `make_task(rng)`, `is_eval(task)`, `prompt(task)` (tasks.py). */
  tasks(c: RunConfig): string;
  /** Python: `outcome(task, completion)` -> dict(r_env, r_task, tokens, turns, repetition) (rewards.py, reward_fn.py). */
  outcome(c: RunConfig): string;
  /** The longest completion worth generating, in words (TRL max_completion_length, verl max_response_length). */
  maxCompletion(c: RunConfig): number;
  /**
   * Python: `policy_prompt(task)`, the trained agent's context in the playground's own tokens (space-separated
   * words of the task's vocabulary), for the exported policy (policy/); its completion is the same words.
   */
  policyPrompt(c: RunConfig): string;
  /** The trained turn's token limit in the playground (EOS included): the policy's max_completion_length. */
  policyMaxNew(c: RunConfig): number;
  /** What the export keeps and what it replaces by a rule, for the README. */
  describe(c: RunConfig): string;
}
