// Your own task (env 'custom') has no Python: its reward is JavaScript run in a sandbox, and a TRL / verl
// script that ran another reward would train another task. Every part refuses, saying so (docs/your-task.md).
import { InputError } from '../../contract/errors';
import type { EnvPython } from './types';

export const CUSTOM_EXPORT_REFUSAL = 'a run of your own task cannot be exported as a TRL or verl recipe: its sampler and reward are JavaScript '
  + 'run in a sandbox, and a Python script with a rewritten reward could score differently; export the run file (it carries the task\'s code) instead';

const refuse = (): never => { throw new InputError(CUSTOM_EXPORT_REFUSAL); };

export const customPython: EnvPython = {
  tasks: refuse, outcome: refuse, maxCompletion: refuse, policyPrompt: refuse, policyMaxNew: refuse, describe: refuse,
};
