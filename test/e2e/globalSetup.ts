// One id per test run: the browser tests share one build of the page within it (servePage.ts's builtPage).
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext { e2eRun: string }
}

export default function setup(project: TestProject): void {
  project.provide('e2eRun', `run-${process.pid}-${Date.now()}`);
}
