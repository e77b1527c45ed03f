// The left column: setup, run buttons, reward, then the other fields in
// groups (algorithm, model, evaluation, the environment's own).
import { FIELDS, fieldsInGroup, type RunConfig } from '../config';
import { fieldEnv } from '../store/modelInfo';
import { ConfigField } from './ConfigField';
import { ModelSize } from './ModelSize';
import { PresetPicker } from './PresetPicker';
import { RewardControls } from './RewardControls';
import { RunButtons } from './RunButtons';
import { useApp } from './storeContext';

const ALGORITHM = fieldsInGroup('algorithm');
const EVALUATION = fieldsInGroup('evaluation');

export function Controls() {
  const env = useApp((s) => s.config.env);
  const envFields = (Object.keys(FIELDS) as (keyof RunConfig)[]).filter((k) => fieldEnv(k) === env);
  return (
    <aside className="controls" aria-label="Controls">
      <PresetPicker />
      <RunButtons />
      <RewardControls />
      <details open>
        <summary>Algorithm</summary>
        {ALGORITHM.map((k) => <ConfigField key={k} name={k} />)}
      </details>
      <details>
        <summary>Model</summary>
        <ModelSize />
      </details>
      <details>
        <summary>Evaluation and length</summary>
        {EVALUATION.map((k) => <ConfigField key={k} name={k} />)}
      </details>
      {envFields.length > 0 && (
        <details>
          <summary>Environment: {env}</summary>
          {envFields.map((k) => <ConfigField key={k} name={k} />)}
        </details>
      )}
    </aside>
  );
}
