// A task's shape on a thread that does not run task code (the page's main thread): its vocabulary, EOS and
// block size, as the task's worker measured them when it made the task's preset (Preset.taskShape). What the
// page plans with (a model's parameter count, a population's memory and placement, a checkpoint's fit) needs
// no more; every method that would run the task says it runs in a worker.
import type { Environment } from '../types';
import { InputError } from '../../contract/errors';

export interface TaskShape { vocab: string[]; eos: number; blockSize: number }

const shapes = new Map<string, TaskShape>();
const CACHE = 16;

/** Remembers the shape of the task of `code` (the page: from its task worker's preset). */
export function registerTaskShape(code: string, shape: TaskShape): void {
  shapes.delete(code);
  shapes.set(code, shape);
  if (shapes.size > CACHE) shapes.delete(shapes.keys().next().value!);
}

/** The shape of `code` as an Environment whose task methods refuse (null: not registered here). */
export function shapeEnvironment(code: string): Environment | null {
  const s = shapes.get(code);
  if (!s) return null;
  const refuse = (): never => { throw new InputError('a task of your own runs in a worker, not on the page: this is only its shape (vocabulary and lengths)'); };
  return {
    id: 'custom', vocab: [...s.vocab], eos: s.eos, blockSize: s.blockSize,
    sampleTasks: refuse, start: refuse, turn: refuse, applyTurn: refuse, score: refuse, evalExtras: refuse, demonstrations: refuse, render: refuse,
  };
}
