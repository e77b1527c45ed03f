// The left column, in the order a newcomer uses it: the preset, the run
// buttons, lambda_tok (the lesson's knob), then the other fields in groups
// (algorithm, model, evaluation, the environment's own), each with a sentence
// of explanation where a choice needs one.
import { FIELDS, fieldsInGroup, type RunConfig } from '../config';
import { fieldEnv } from '../store/modelInfo';
import { ConfigField } from './ConfigField';
import { advantageExplain, algorithmExplain } from './explain';
import { ModelSize } from './ModelSize';
import { PresetAbout, PresetPicker } from './PresetPicker';
import { RewardControls } from './RewardControls';
import { RunButtons } from './RunButtons';
import { useApp } from './storeContext';

// algorithm and advantage come first, each with its explanation
const ALGORITHM = fieldsInGroup('algorithm').filter((k) => k !== 'algorithm' && k !== 'advantage');
const EVALUATION = fieldsInGroup('evaluation');

export function Controls() {
  const env = useApp((s) => s.config.env);
  const algorithm = useApp((s) => s.config.algorithm);
  const advantage = useApp((s) => s.config.advantage);
  const envFields = (Object.keys(FIELDS) as (keyof RunConfig)[]).filter((k) => fieldEnv(k) === env);
  return (
    <aside className="controls" aria-label="Controls">
      <PresetPicker />
      <RunButtons />
      <RewardControls />
      <PresetAbout />
      <details open data-control="algorithm">
        <summary>Algorithm</summary>
        <ConfigField name="algorithm" explain={algorithmExplain(algorithm)} />
        <ConfigField name="advantage" explain={advantageExplain(advantage)} />
        {ALGORITHM.map((k) => <ConfigField key={k} name={k} />)}
      </details>
      <details data-control="model">
        <summary>Model</summary>
        <ModelSize />
      </details>
      <details data-control="evaluation">
        <summary>Evaluation and length</summary>
        {EVALUATION.map((k) => <ConfigField key={k} name={k} />)}
      </details>
      {envFields.length > 0 && (
        <details data-control="environment">
          <summary>Environment: {env}</summary>
          {envFields.map((k) => <ConfigField key={k} name={k} />)}
        </details>
      )}
    </aside>
  );
}
