// Your own task on the page (docs/your-task.md): the editor's text, Check (the format's checks, run in
// the QuickJS sandbox), and Use (its preset registered here and in the worker, a run of it the current
// run). Code from a link runs only after the person has read it and confirmed (boot asks).
import { checkUserTask, prepareUserTasks, type TaskCheck } from '../envs/userTask';
import { presetWithTask } from '../envs/userTask/register';
import { presetConfig } from '../envs/presets';
import { errorText, type StoreContext } from './context';
import type { TaskSlice } from './types';
import { decodeSetup, overridesOf } from './urlState';
import reverseTask from '../../examples/tasks/reverse.js?raw';
import relayTask from '../../examples/tasks/relay.js?raw';
import hackableTask from '../../examples/tasks/sort-hackable.js?raw';

/** The examples the editor starts from (examples/tasks/*.js), each a small lesson. */
export const TASK_EXAMPLES: readonly { name: string; title: string; code: string }[] = [
  { name: 'reverse', title: 'Reverse a word (one policy)', code: reverseTask },
  { name: 'relay', title: 'Relay a secret (a messenger and a solver)', code: relayTask },
  { name: 'sort-hackable', title: 'Sort, with a hackable reward', code: hackableTask },
];

export type TaskState = Pick<TaskSlice, 'taskDraft' | 'taskCheck' | 'taskBusy'>;
export const initialTask = (): TaskState => ({ taskDraft: null, taskCheck: null, taskBusy: false });

export function taskActions(ctx: StoreContext): Omit<TaskSlice, keyof TaskState> {
  const { set, get } = ctx;
  const check = async (code: string): Promise<TaskCheck> => {
    await prepareUserTasks();
    return checkUserTask(code);
  };
  return {
    openTaskEditor(example = 'reverse') {
      const e = TASK_EXAMPLES.find((x) => x.name === example) ?? TASK_EXAMPLES[0];
      set({ taskDraft: e.code, taskCheck: null });
    },
    closeTaskEditor() { set({ taskDraft: null, taskCheck: null }); },
    setTaskDraft(code) { set({ taskDraft: code, taskCheck: null }); },

    async checkTask() {
      const code = get().taskDraft;
      if (code === null) return;
      set({ taskBusy: true });
      try { set({ taskCheck: await check(code) }); } catch (e) { set({ error: `Check failed: ${errorText(e)}` }); } finally { set({ taskBusy: false }); }
    },

    async useTask(code = get().taskDraft ?? '', link) {
      set({ taskBusy: true });
      try {
        const c = await check(code); // nothing trains on a task that fails its checks
        set({ taskCheck: c });
        if (!c.ok) return;
        const p = await presetWithTask(null, code);
        // one run of the task, as the preset picker's choice is (a population is one click away in the Sweep panel);
        // from a link, the link's other parameters now read against the task's preset
        const d = link !== undefined ? decodeSetup(link) : null;
        const overrides = d && d.preset === p.name && d.taskCode === undefined ? d.overrides : {};
        set({
          population: d?.population ?? null, untilPaused: d?.untilPaused ?? false, preset: p.name, config: presetConfig(p, overrides), fieldErrors: {},
          ...(d && d.problems.length > 0 ? { urlProblems: d.problems } : {}),
        });
        ctx.overlayForNewRun();
        await ctx.initRun(p.name, overridesOf(p.name, get().config));
        ctx.syncUrl();
      } catch (e) {
        set({ error: `The task was not used: ${errorText(e)}` });
      } finally {
        set({ taskBusy: false });
      }
    },
  };
}
