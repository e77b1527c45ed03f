import { defineConfig } from 'vitest/config';

/**
 * Files that run one at a time, after the rest: real browsers (timed first-screen checks; pages that train on
 * both cores) and the real TRL (torch on both cores). The rest, the WebGPU tests among them (most of their time
 * is SwiftShader compiling pipelines, one at a time), run two files at a time.
 */
const ALONE = ['test/e2e/**/*.test.ts', 'test/export/trlReal.test.ts'];

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ALONE, fileParallelism: true, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, globalSetup: ['test/e2e/globalSetup.ts'], fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
