// Model size (layers, heads, width) with the parameter count it gives.
import { useId } from 'react';
import { parameterCount } from '../store/modelInfo';
import { ConfigField } from './ConfigField';
import { fmtCount } from './labels';
import { useApp } from './storeContext';

export function ModelSize() {
  const id = useId();
  const config = useApp((s) => s.config);
  const n = parameterCount(config);
  return (
    <fieldset className="model-size" aria-describedby={`${id}-count`}>
      <legend>Model size</legend>
      <ConfigField name="nLayer" />
      <ConfigField name="nHead" />
      <ConfigField name="nEmbd" />
      <p id={`${id}-count`} data-testid="param-count">{n === null ? 'parameters: –' : `${fmtCount(n)} parameters (${n.toLocaleString('en-US')}) per policy`}</p>
    </fieldset>
  );
}
