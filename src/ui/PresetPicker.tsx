// Environment and preset; the preset's explanation of what to watch, and its
// sister presets: one click trains the sister beside this run, overlaid.
import { useId } from 'react';
import { findPreset, PRESETS } from '../envs/presets';
import type { RunConfig } from '../config';
import { envIds } from '../store/modelInfo';
import { sistersOf } from './sisters';
import { useApp, useLiveSteps } from './storeContext';

const presetEnv = (p: (typeof PRESETS)[number]) => p.config.env ?? 'relay';

export function PresetPicker() {
  const id = useId();
  const presetName = useApp((s) => s.preset);
  const env = useApp((s) => s.config.env);
  const choosePreset = useApp((s) => s.choosePreset);
  const chooseEnv = useApp((s) => s.chooseEnv);
  const busy = useApp((s) => s.busy !== null);
  const preset = PRESETS.find((p) => p.name === presetName) ?? findPreset(PRESETS[0].name);
  return (
    <section aria-labelledby={`${id}-h`} className="preset">
      <h2 id={`${id}-h`}>Setup</h2>
      <div className="field wide">
        <label htmlFor={`${id}-env`}>Environment</label>
        <select id={`${id}-env`} value={env} disabled={busy} onChange={(e) => void chooseEnv(e.target.value as RunConfig['env'])}>
          {envIds().map((v) => <option key={v} value={v} disabled={!PRESETS.some((p) => presetEnv(p) === v)}>{v}</option>)}
        </select>
      </div>
      <div className="field wide">
        <label htmlFor={`${id}-preset`}>Preset</label>
        <select id={`${id}-preset`} value={preset.name} disabled={busy} aria-describedby="preset-explain" onChange={(e) => void choosePreset(e.target.value)}>
          {PRESETS.filter((p) => presetEnv(p) === env || p.name === preset.name).map((p) => <option key={p.name} value={p.name}>{p.title}</option>)}
        </select>
      </div>
    </section>
  );
}

/** The preset's paragraph (what to watch) and its guided comparisons. */
export function PresetAbout() {
  const presetName = useApp((s) => s.preset);
  const preset = PRESETS.find((p) => p.name === presetName) ?? findPreset(PRESETS[0].name);
  return (
    <div className="preset-about">
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
