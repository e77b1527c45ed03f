// Environment and preset: each preset with its explanation of what to watch.
import { useId } from 'react';
import { findPreset, PRESETS } from '../envs/presets';
import type { RunConfig } from '../config';
import { envIds } from '../store/modelInfo';
import { useApp } from './storeContext';

export function PresetPicker() {
  const id = useId();
  const presetName = useApp((s) => s.preset);
  const env = useApp((s) => s.config.env);
  const choosePreset = useApp((s) => s.choosePreset);
  const chooseEnv = useApp((s) => s.chooseEnv);
  const busy = useApp((s) => s.busy !== null);
  const preset = PRESETS.find((p) => p.name === presetName) ?? findPreset(PRESETS[0].name);
  const presetEnv = (p: (typeof PRESETS)[number]) => p.config.env ?? 'relay';
  return (
    <section aria-labelledby={`${id}-h`} className="preset">
      <h2 id={`${id}-h`}>Setup</h2>
      <div className="field">
        <label htmlFor={`${id}-env`}>Environment</label>
        <select id={`${id}-env`} value={env} disabled={busy} onChange={(e) => void chooseEnv(e.target.value as RunConfig['env'])}>
          {envIds().map((v) => <option key={v} value={v} disabled={!PRESETS.some((p) => presetEnv(p) === v)}>{v}</option>)}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-preset`}>Preset</label>
        <select id={`${id}-preset`} value={preset.name} disabled={busy} aria-describedby={`${id}-explain`} onChange={(e) => void choosePreset(e.target.value)}>
          {PRESETS.filter((p) => presetEnv(p) === env || p.name === preset.name).map((p) => <option key={p.name} value={p.name}>{p.title}</option>)}
        </select>
      </div>
      <p id={`${id}-explain`} className="explain">{preset.explain}</p>
    </section>
  );
}
