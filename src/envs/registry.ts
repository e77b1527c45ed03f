// Environments by id, built from the run config's env fields.
import type { RunConfig } from '../config';
import { InputError } from '../errors';
import { createAddition } from './addition';
import { createRelay } from './relay';
import type { Environment } from './types';

export interface DemoOptions { demoSilence?: number; flagAwareDemos?: boolean }

export function createEnv(c: RunConfig, demo: DemoOptions = {}): Environment {
  switch (c.env) {
    case 'relay':
      return createRelay({ digits: c.digits, pKnown: c.pKnown, pKnownTrain: c.pKnownTrain, maxMessage: c.maxMessage, ...demo }) as Environment;
    case 'addition': {
      const env = createAddition({ topology: c.topology });
      // alone, only the Actor plays: its one slot is the frozen Actor's
      return (c.topology === 'alone' ? { ...env, roleSlot: { actor: 'actor' } } : env) as Environment;
    }
    default:
      throw new InputError(`the ${c.env} environment is not available yet`);
  }
}
