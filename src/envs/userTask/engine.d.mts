// Types of engine.mjs (plain JavaScript so the sandbox's worker needs no TypeScript loader).
import type { QuickJSSyncVariant, QuickJSWASMModule } from 'quickjs-emscripten-core';

/** A task's memory limit (bytes): the engine's whole wasm memory, its own static data and stack (about 5 MB) included. */
export declare const MEMORY_BYTES: number;
/** The engine's wasm memory at its start: no limit is below it. */
export declare const ENGINE_START_BYTES: number;
/** Loads QuickJS with its wasm memory capped at `limitBytes` (at least ENGINE_START_BYTES). */
export declare function loadEngineWasm(variant: QuickJSSyncVariant, limitBytes: number): Promise<QuickJSWASMModule>;

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
