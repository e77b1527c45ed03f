// Environment and preset; the preset's explanation of what to watch, and its
// sister presets: one click trains the sister beside this run, overlaid.
import { useId } from 'react';
import { findPreset, PRESETS } from '../envs/presets';
import type { RunConfig } from '../config';
import { envIds } from '../store/modelInfo';
import { sistersOf } from './sisters';
import { useApp, useLiveSteps } from './storeContext';

const presetEnv = (p: (typeof PRESETS)[number]) => p.config.env ?? 'relay';

/** Shorter names where the title, less its environment (chosen just above), would not fit the 290 px column. */
const SHORT: Record<string, string> = {
  'relay-never-silent': 'a warm start never silent',
  'relay-noisy': 'noisy channel (GSPO, group norm)',
  'relay-noisy-dr': 'noisy channel, r − mean (Dr. GRPO)',
  'relay-scouts': 'four Scouts, one knows the answer',
  'agentpo-hint': 'a hint writer (GRPO)',
  'agentpo-critic': 'a critic (GRPO)',
};

/** The option's text: the title without its environment's prefix ("Relay: "), or a shorter name; the full title is the About line below. */
export function presetOptionLabel(p: { name: string; title: string }): string {
  return SHORT[p.name] ?? p.title.replace(/^[^:]{1,24}:\s*/, '');
}

export function PresetPicker() {
  const id = useId();
  const presetName = useApp((s) => s.preset);
  const env = useApp((s) => s.config.env);
  const choosePreset = useApp((s) => s.choosePreset);
  const chooseEnv = useApp((s) => s.chooseEnv);
  const busy = useApp((s) => s.busy !== null);
  // the task editor open on a task not in use yet: the environment is "your task", and no preset is (Start waits for Use)
  const taskPending = useApp((s) => s.taskDraft !== null && s.config.env !== 'custom');
  const preset = presetOr(presetName);
  const shown = preset.config.env === 'custom' ? [preset] : PRESETS.filter((p) => presetEnv(p) === env || p.name === preset.name);
  return (
    <section aria-labelledby={`${id}-h`} className="preset" data-control="presetPicker">
      <h2 id={`${id}-h`}>Setup</h2>
      <div className="field wide">
        <label htmlFor={`${id}-env`}>Environment</label>
        <select id={`${id}-env`} value={taskPending ? 'custom' : env} disabled={busy} onChange={(e) => void chooseEnv(e.target.value as RunConfig['env'])}>
          {envIds().map((v) => <option key={v} value={v} disabled={!PRESETS.some((p) => presetEnv(p) === v)}>{v}</option>)}
          <option value="custom">your task</option>
        </select>
      </div>
      <div className="field stacked">
        <label htmlFor={`${id}-preset`}>Preset</label>
        {taskPending ? (
          <select id={`${id}-preset`} value="" disabled aria-describedby="preset-explain"><option value="">none yet: Use a task in the editor</option></select>
        ) : (
          <select id={`${id}-preset`} value={preset.name} disabled={busy} aria-describedby="preset-explain" onChange={(e) => void choosePreset(e.target.value)}>
            {shown.map((p) => <option key={p.name} value={p.name} title={p.title}>{presetOptionLabel(p)}</option>)}
          </select>
        )}
      </div>
    </section>
  );
}

/** The preset's paragraph (what to watch) and its guided comparisons. */
/** The preset of that name (a task of your own is registered, not shipped), else the first. */
function presetOr(name: string) {
  try { return findPreset(name); } catch { return PRESETS[0]; }
}

export function PresetAbout() {
  const presetName = useApp((s) => s.preset);
  const preset = presetOr(presetName);
  return (
    <div className="preset-about" data-control="presetPicker">
      <details open>
        <summary>About this preset: {preset.title}</summary>
        <p id="preset-explain" className="explain">{preset.explain}</p>
      </details>
      <SisterButtons />
    </div>
  );
}

export function SisterButtons() {
  const presetName = useApp((s) => s.preset);
  const runSister = useApp((s) => s.runSister);
  const ready = useApp((s) => s.trainer?.config != null && s.busy === null);
  const steps = useLiveSteps();
  const sisters = sistersOf(presetName);
  if (!sisters.length) return null;
  return (
    <div className="sisters" data-testid="sisters">
      <h3>Compare</h3>
      {steps === 0 && <p className="muted">Train this run first (Start or Step); then one click trains its sister beside it.</p>}
      {sisters.map((s) => (
        <p key={s.preset}>
          <button type="button" disabled={!ready || steps === 0} onClick={() => void runSister(s.preset)}>Run {s.preset}: {s.label}</button>{' '}
          <small className="muted">Both runs are overlaid; watch {s.watch}.</small>
        </p>
      ))}
    </div>
  );
}
