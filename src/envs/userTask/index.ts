// Your own task (docs/your-task.md): a JavaScript module, run in a sandbox, as an Environment.
// The API the CLI and the page use:
//   await prepareUserTasks()            once per thread (loads the sandbox's engine)
//   checkUserTask(code)                 the format's checks: problems (rule + function) and sample renders
//   loadUserTask(code)                  { env, spec }: the Environment the Trainer uses unchanged
//   userTaskPreset(code)                a Preset (settings, warm start) for a run of it
//   config { env: 'custom', taskCode }  how a run carries it (createEnv builds it from there)
export { prepareUserTasks, userTasksReady, TaskError, CALL_MS, MEMORY_BYTES } from './sandbox';
export { checkUserTask, type TaskCheck, type TaskProblem } from './check';
export { userTaskPreset, taskHash } from './preset';
export type { TaskSpec } from './format';
export type { UserTaskItem, UserTaskState } from './environment';
export { loadUserTask, type LoadedTask } from './load';
