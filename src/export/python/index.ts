// Each environment's Python for the export, by the env's id. A Record over the
// config's env union: adding an env without its export fails to compile.
import type { RunConfig } from '../../config';
import { additionPython } from './addition';
import { philosophersPython } from './philosophers';
import { relayPython } from './relay';
import type { EnvPython } from './types';
import { customPython } from './custom';

export const ENV_PYTHON: Readonly<Record<RunConfig['env'], EnvPython>> = {
  relay: relayPython,
  addition: additionPython,
  philosophers: philosophersPython,
  custom: customPython,
};

export type { EnvPython } from './types';
