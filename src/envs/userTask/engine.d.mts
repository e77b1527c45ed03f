// Types of engine.mjs (plain JavaScript so the sandbox's worker needs no TypeScript loader).
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

/** Why a call failed: a limit (time, memory, stack, size), the task's own error, or a module that did not load. */
export type FailureCause = 'time' | 'memory' | 'stack' | 'size' | 'threw' | 'task' | 'syntax' | 'await' | 'no-default' | 'internal';

/** A failed call as data (failure.ts words it). */
export interface Failure {
  cause: FailureCause;
  fn: string;
  item: number;
  name: string;
  message: string;
  stack?: string;
  rejected?: string;
  ours?: boolean;
}

export interface EngineOptions { code: string; prelude: string; callMs: number; memoryBytes: number; stackBytes: number; taskFile: string }

export declare class TaskEngine {
  constructor(wasm: QuickJSWASMModule, o: EngineOptions);
  broken: boolean;
  disposable: boolean;
  load(): Failure | null;
  call(name: string, arg: string): { text: string; failure?: undefined } | { failure: Failure; text?: undefined };
  close(): void;
}
