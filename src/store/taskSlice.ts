// Your own task on the page (docs/your-task.md): the editor's text, Check (the format's checks, run in
// the QuickJS sandbox) and Use (its preset registered here and in the worker, a run of it the current
// run). Task code never runs on the page's main thread: Check and a task's preset are asked of the
// task's own worker (deps.tasks: src/store/taskWorker.ts; in Node tests, this thread). Code from a link
// runs only after the person has read it and confirmed (boot asks).
import type { TaskService } from '../envs/userTask/taskService';
import { findPreset, presetConfig, registerPreset, type Preset } from '../envs/presets';
import { InputError } from '../contract/errors';
import { taskCodeOf, type RunConfig } from '../config';
import { registerTaskShape } from '../envs/userTask/shape';
import { errorText, type StoreContext } from './context';
import type { TaskSlice } from './types';
import { decodeSetup, overridesOf } from './urlState';
import priorityTask from '../../examples/tasks/priority.js?raw';
import reverseTask from '../../examples/tasks/reverse.js?raw';
import relayTask from '../../examples/tasks/relay.js?raw';
import hackableTask from '../../examples/tasks/sort-hackable.js?raw';

/**
 * The examples the editor starts from (examples/tasks/*.js), each a small lesson. The first has a message
 * to pay for: lambda_tok trades its accuracy for tokens (a one-role task has no tokens to charge).
 */
export const TASK_EXAMPLES: readonly { name: string; title: string; code: string }[] = [
  { name: 'priority', title: 'Three digits of unequal worth (a messenger and a solver)', code: priorityTask },
  { name: 'relay', title: 'Relay a secret (a messenger and a solver)', code: relayTask },
  { name: 'reverse', title: 'Reverse a word (one policy: no message)', code: reverseTask },
  { name: 'sort-hackable', title: 'Sort, with a hackable reward (one policy)', code: hackableTask },
];

export type TaskState = Pick<TaskSlice, 'taskDraft' | 'taskCheck' | 'taskBusy'>;
export const initialTask = (): TaskState => ({ taskDraft: null, taskCheck: null, taskBusy: null });

/** The service that runs task code: the page's task worker, else (Node) this thread, loaded only then. */
export async function taskService(ctx: StoreContext): Promise<TaskService> {
  return ctx.deps.tasks ?? (ctx.deps.tasks = (await import('../envs/userTask/taskService')).localTaskService());
}

/**
 * The preset `name` (null: whatever the task is called), registering the task of `code` first, made by the
 * task's worker (the page runs none of the code). A broken task, or one named otherwise, throws.
 */
export async function presetOfTask(ctx: StoreContext, name: string | null, code: string | undefined): Promise<Preset> {
  if (typeof code !== 'string') return findPreset(name ?? '');
  const p = await (await taskService(ctx)).preset(code);
  if (name !== null && p.name !== name) throw new InputError(`the task's code declares the task "${p.name.slice('task-'.length)}", not the run's preset "${name}"`);
  registerTaskPreset(p);
  return p;
}

/** A task's preset (from its worker) registered on the page, with its shape: what the page plans with, running none of its code. */
function registerTaskPreset(p: Preset): void {
  registerPreset(p);
  const code = taskCodeOf(p.config as RunConfig);
  if (code !== undefined && p.taskShape) registerTaskShape(code, p.taskShape);
}

export function taskActions(ctx: StoreContext): Omit<TaskSlice, keyof TaskState> {
  const { set, get } = ctx;
  return {
    openTaskEditor(example = TASK_EXAMPLES[0].name) {
      const e = TASK_EXAMPLES.find((x) => x.name === example) ?? TASK_EXAMPLES[0];
      set({ taskDraft: e.code, taskCheck: null });
      void taskService(ctx).then((t) => t.prepare()).catch(() => { /* Check says what is wrong */ }); // the sandbox loads while the person reads
    },
    closeTaskEditor() { set({ taskDraft: null, taskCheck: null }); },
    setTaskDraft(code) { set({ taskDraft: code, taskCheck: null }); },

    async checkTask() {
      const code = get().taskDraft;
      if (code === null) return;
      set({ taskBusy: 'check' });
      try {
        const { check } = await (await taskService(ctx)).check(code);
        if (get().taskDraft === code) set({ taskCheck: check }); // not a check of text edited meanwhile
      } catch (e) { set({ error: `Check failed: ${errorText(e)}` }); } finally { set({ taskBusy: null }); }
    },

    async useTask(code = get().taskDraft ?? '', link) {
      set({ taskBusy: 'use' });
      try {
        const { check, preset: p } = await (await taskService(ctx)).check(code); // nothing trains on a task that fails its checks
        set({ taskCheck: check });
        if (!check.ok || !p) return;
        registerTaskPreset(p);
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
        set({ taskBusy: null });
      }
    },
  };
}
