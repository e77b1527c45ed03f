// The shipped lessons: JSON files in ./shipped/, bundled by Vite for the page and imported the same
// way by the CLI (tsx). Each is checked like a lesson from a file (test/lessons/shipped.test.ts).
import { clip, InputError } from '../contract/errors';
import type { Lesson } from './format';
import groupNormalization from './shipped/group-normalization.json';
import lambdaFrontier from './shipped/lambda-frontier.json';
import strategicSilence from './shipped/strategic-silence.json';
import collaborator from './shipped/collaborator.json';
import rewardHack from './shipped/reward-hack.json';

/** In teaching order. */
export const SHIPPED_LESSONS: readonly Lesson[] = [groupNormalization, lambdaFrontier, strategicSilence, collaborator, rewardHack] as unknown as Lesson[];

/** A shipped lesson by name, or an InputError naming the shipped ones. */
export function findLesson(name: string): Lesson {
  const l = SHIPPED_LESSONS.find((x) => x.name === name);
  if (!l) throw new InputError(`unknown lesson "${clip(name, 60)}" (lessons: ${SHIPPED_LESSONS.map((x) => x.name).join(', ')}; or a lesson FILE path)`);
  return l;
}
