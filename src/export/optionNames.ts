// The option names TRL and verl really have, read from their sources (not from memory):
// optionNames.json is written by scripts/extract_option_names.py from git checkouts of
// huggingface/trl and volcengine/verl; the commits and versions are in the file.
import names from './optionNames.json';

export const OPTION_SOURCES = {
  trl: { repo: names.trl.repo, commit: names.trl.commit, version: names.trl.version, files: names.trl.files },
  transformers: { repo: names.trl.trainingArguments.repo, commit: names.trl.trainingArguments.commit, files: [names.trl.trainingArguments.file] },
  verl: { repo: names.verl.repo, commit: names.verl.commit, version: names.verl.version, files: names.verl.files },
} as const;

/** GRPOConfig's own fields and those of TRL's _BaseConfig, plus the TrainingArguments fields the export sets. */
export const TRL_OPTIONS: ReadonlySet<string> = new Set([...names.trl.grpoConfig, ...names.trl.trainingArguments.names]);
/** Every dotted key of verl's generated PPO trainer config (ppo_trainer.yaml with its defaults resolved). */
export const VERL_KEYS: ReadonlySet<string> = new Set(names.verl.keys);
export const VERL_LOSS_MODES: ReadonlySet<string> = new Set(names.verl.lossModes);
export const VERL_ADV_ESTIMATORS: ReadonlySet<string> = new Set(names.verl.advEstimators);
