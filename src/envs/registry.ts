// Environments by id, built from the run config's env fields.
import type { RunConfig } from '../config';
import { InputError } from '../contract/errors';
import { createAddition } from './addition';
import { createPhilosophers, philosophersCurriculum } from './philosophers';
import { createRelay } from './relay';
import type { DemoOptions, Environment } from './types';
import { loadUserTask, userTasksReady } from './userTask';
import { shapeEnvironment } from './userTask/shape';
import { taskCodeOf } from '../config';

export type { DemoOptions } from './types';

export function createEnv(c: RunConfig, demo: DemoOptions = {}): Environment {
  switch (c.env) {
    case 'relay':
      return createRelay({ digits: c.digits, pKnown: c.pKnown, pKnownTrain: c.pKnownTrain, maxMessage: c.maxMessage, channelNoise: c.channelNoise, scouts: c.scouts, ...demo }) as Environment;
    case 'addition': {
      const env = createAddition({ topology: c.topology });
      // alone, only the Actor plays: its one slot is the frozen Actor's
      return (c.topology === 'alone' ? { ...env, roleSlot: { actor: 'actor' } } : env) as Environment;
    }
    case 'philosophers': {
      const env = createPhilosophers({
        philosophers: c.philosophers, rounds: c.rounds, maxMessage: c.philMessage,
        mealReward: c.mealReward, deadlockPenalty: c.deadlockPenalty, starvePenalty: c.starvePenalty, actionCost: c.actionCost,
      });
      const curriculum = c.curriculum === 'on' ? philosophersCurriculum(c.philosophers, c.curriculumThreshold, c.curriculumPatience) : undefined;
      return (curriculum ? { ...env, curriculum } : env) as Environment;
    }
    case 'custom': {
      const code = taskCodeOf(c);
      if (code === undefined) throw new InputError('the environment "custom" needs a task\'s code (config taskCode): write one in the page, or give the CLI --task FILE (docs/your-task.md)');
      // a thread that runs no task code (the page) plans with the task's shape, as its worker measured it
      if (!userTasksReady()) { const shape = shapeEnvironment(code); if (shape) return shape; }
      return loadUserTask(code).env;
    }
    default:
      throw new InputError(`unknown environment ${String((c as { env: unknown }).env)}`);
  }
}
