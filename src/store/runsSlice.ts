// The runs table: overlay, rename, delete, duplicate-with-changes, export and
// import. An import is checked whole before anything is stored.
import { taskCodeOf, type RunConfig } from '../config';
import { findPreset, presetConfig } from '../envs/presets';
import { presetOfTask } from './taskSlice';
import { InputError } from '../contract/errors';
import { LOSS_IDS, LOSSES, twinSettings, type LossId } from '../contract/losses';
import { recipeBundle, type BundleFile } from '../export/bundle';
import { policyFilesFromBytes } from '../export/policy';
import type { ExportFile } from '../export/readme';
import { exportRecipe } from '../export/recipe';
import { checkRunCheckpoint, fileStem, MAX_CHECKPOINT_BYTES, MAX_RUN_FILE_BYTES, metricsCsv, parseRunFile, RunFileError, runToJson } from './runFile';
import { errorText, type StoreContext } from './context';
import type { CheckpointKind } from './runsDb';
import { changeStep, type RunMeta } from './runTypes';
import type { RunsSlice } from './types';
import { overridesOf } from './urlState';
import { markdownText } from './textFormats';

/**
 * The run's config with its live changes applied, each field at its last value: what the run trained
 * with at its end (`meta.config` is the config of its first step).
 */
export function configAtEnd(meta: Pick<RunMeta, 'config' | 'changes'>): RunConfig {
  const c = { ...meta.config } as Record<string, unknown>;
  for (const ch of meta.changes ?? []) c[ch.field] = ch.value;
  return c as unknown as RunConfig;
}

/** The live changes as a file beside the recipe (which is written with the values of the end), or null when there were none. */
export function liveChangesNote(meta: Pick<RunMeta, 'name' | 'config' | 'changes'>): ExportFile | null {
  if (!meta.changes?.length) return null;
  // each row's "before" is the value just before that change, so walk them in order
  const now = { ...meta.config } as Record<string, unknown>;
  const lines = meta.changes.map((c) => { const row = `| ${changeStep(c)} | ${markdownText(c.field)} | ${markdownText(String(now[c.field]))} | ${markdownText(String(c.value))} |`; now[c.field] = c.value; return row; });
  const text = `# Live changes of "${markdownText(meta.name)}"

The recipe is written with the values in force at the end of the run. The run
changed these while it trained (step k is the k-th step, counting from 1; the
change applied from that step on). A recipe trains with one value throughout,
so a schedule like this one needs a callback of your own.

| from step | field | before | after |
|---|---|---|---|
${lines.join('\n')}
`;
  return { path: 'LIVE_CHANGES.md', text };
}

/**
 * The same run as a stored one: made at the same moment, of the same preset, with as many steps and the same
 * evals (a run exported, then imported again; its name may have been changed since).
 */
export function sameRun(a: Pick<RunMeta, 'createdAt' | 'preset' | 'steps' | 'evals'>, b: Pick<RunMeta, 'createdAt' | 'preset' | 'steps' | 'evals'>): boolean {
  return a.createdAt === b.createdAt && a.preset === b.preset && a.steps === b.steps && a.evals.length === b.evals.length
    && a.evals.every((e, i) => e.step === b.evals[i].step && e.accuracy === b.evals[i].accuracy && e.tokens === b.evals[i].tokens);
}

/** `name`, or `name (2)`, `name (3)`... : the first that no run in `taken` has. */
export function freeName(name: string, taken: readonly string[]): string {
  const used = new Set(taken);
  if (!used.has(name)) return name;
  for (let k = 2; ; k++) if (!used.has(`${name} (${k})`)) return `${name} (${k})`;
}

export type RunsState = Pick<RunsSlice, 'runs' | 'overlay' | 'pinned' | 'storageKind' | 'storageWhy' | 'notice' | 'importError'>;

export const initialRuns = (): RunsState => ({ runs: [], overlay: [], pinned: [], storageKind: null, storageWhy: null, notice: null, importError: null });

export function runsActions(ctx: StoreContext): Omit<RunsSlice, keyof RunsState> {
  const { set, get, deps } = ctx;
  const seriesOf = async (id: string) => deps.hub.get(id) ?? deps.storage.loadMetrics(id);
  const find = (id: string): RunMeta => {
    const m = ctx.meta(id);
    if (!m) throw new Error(`no run ${id}`);
    return m;
  };

  return {
    async toggleOverlay(id) {
      const { overlay } = get();
      // hiding a pinned run unpins it: a pin only keeps a shown run shown
      if (overlay.includes(id)) { set({ overlay: overlay.filter((x) => x !== id), pinned: get().pinned.filter((x) => x !== id) }); return; }
      // shown at once (the checkbox follows the click); its metrics arrive from storage after, and the charts redraw then
      set({ overlay: [...overlay, id] });
      try {
        if (!deps.hub.has(id) && id !== get().runId) deps.hub.set(id, await deps.storage.loadMetrics(id));
      } catch (e) {
        set({ overlay: get().overlay.filter((x) => x !== id), error: `the metrics of that run could not be read: ${errorText(e)}` });
      }
    },

    async togglePin(id) {
      const { pinned, overlay, runId } = get();
      if (pinned.includes(id)) { set({ pinned: pinned.filter((x) => x !== id) }); return; }
      set({ pinned: [...pinned, id] });
      if (id !== runId && !overlay.includes(id)) await get().toggleOverlay(id);
    },

    async renameRun(id, name) {
      const clean = name.trim().slice(0, 200);
      if (!clean) { set({ error: 'a run needs a name' }); return; }
      ctx.updateMeta(id, { name: clean }, true);
      await ctx.recorder.flush();
    },

    async deleteRun(id) {
      if (id === get().runId) { set({ error: 'This is the run in the trainer; start a new run (Reset or a preset) before deleting it.' }); return; }
      const meta = ctx.meta(id);
      if (!meta) return;
      await ctx.askFirst({
        title: `Delete "${meta.name}"?`,
        body: 'Its metrics, evals and checkpoints are removed from this browser. Export it first to keep a copy.',
        confirmLabel: 'Delete',
      }, async () => {
        ctx.dropRun(id);
        deps.hub.delete(id);
        await deps.storage.deleteRun(id);
      }, true);
    },

    async duplicateRun(id) {
      await ctx.guard(async () => {
        const meta = find(id);
        await ctx.askFirst({
          title: `Set up a run like "${meta.name}"?`,
          body: `A new run starts with its preset and settings; change what you like before pressing Start. The current run (${ctx.currentSteps()} steps) stays in the runs table.`,
          confirmLabel: 'Duplicate',
        }, async () => {
          ctx.overlayForNewRun();
          await ctx.initRun(meta.preset, overridesOf(meta.preset, meta.config));
          set({ notice: `Set up like "${meta.name}": change what you like, then press Start.` });
        }, ctx.currentSteps() > 0);
      });
    },

    async twinRun(id, algorithm) {
      await ctx.guard(async () => {
        const meta = find(id);
        if (!(LOSS_IDS as string[]).includes(algorithm)) throw new InputError(`twin: algorithm must be one of ${LOSS_IDS.join(', ')}; got ${JSON.stringify(algorithm)}`);
        if (algorithm === meta.config.algorithm) throw new InputError(`twin: "${meta.name}" already trains with ${algorithm}; pick another loss variant`);
        const to = algorithm as LossId, label = LOSSES[to].label;
        // the config of its first step (as Duplicate), the loss changed: the same seed, so the same first rollout
        const config: RunConfig = { ...meta.config, ...twinSettings(meta.config, to) };
        await ctx.askFirst({
          title: `Train a twin of "${meta.name}" with ${label}?`,
          body: `A new run starts with its preset, settings and seed (${meta.config.seed}); only the loss changes${config.epsLow !== meta.config.epsLow || config.epsHigh !== meta.config.epsHigh ? `, and the clip range, to ${config.epsLow} / ${config.epsHigh} (the other level's scale)` : ''}. Both are on the charts. The current run (${ctx.currentSteps()} steps) stays in the runs table.`,
          confirmLabel: 'Train twin',
        }, async () => {
          ctx.overlayForNewRun();
          await ctx.initRun(meta.preset, overridesOf(meta.preset, config));
          if (get().preset !== meta.preset || !get().trainer?.config) return; // initRun said why
          if (id !== get().runId && !get().overlay.includes(id)) await get().toggleOverlay(id);
          await get().start();
          set({ notice: `Training a twin of "${meta.name}" with ${label}, seed ${meta.config.seed}: both are on the charts.` });
        }, ctx.currentSteps() > 0);
      });
    },

    async exportRun(id, what) {
      /** The weights a TRL export carries: the current run's live last, else the stored last, else the stored best. */
      const policyCheckpoint = async (id: string): Promise<{ which: CheckpointKind; bytes: Uint8Array } | null> => {
        if (id === get().runId) {
          try { return { which: 'last', bytes: await ctx.api.exportCheckpoint('last', id) }; } catch { /* no trainer: the stored ones */ }
        }
        for (const which of ['last', 'best'] as const) {
          const bytes = await deps.storage.getCheckpoint(id, which);
          if (bytes) return { which, bytes };
        }
        return null;
      };
      await ctx.guard(async () => {
        const meta = find(id), stem = fileStem(meta.name);
        if (what === 'json') {
          deps.download(`${stem}.run.json`, new Blob([runToJson(meta, await seriesOf(id))], { type: 'application/json' }));
        } else if (what === 'csv') {
          deps.download(`${stem}.metrics.csv`, new Blob([metricsCsv(await seriesOf(id))], { type: 'text/csv' }));
        } else if (what === 'trl' || what === 'verl') {
          const folder = `${stem}-${what}`;
          const config = configAtEnd(meta);
          const files: BundleFile[] = exportRecipe(what, config, meta.preset);
          const notes = liveChangesNote(meta);
          if (notes) files.push(notes);
          // TRL also gets policy/, the run's own weights as a transformers model (the CLI's export --run writes the same)
          const ck = what === 'trl' ? await policyCheckpoint(id) : null;
          let left: string | null = null;
          try {
            if (ck) files.push(...policyFilesFromBytes(ck.bytes, config, meta.preset, `its ${ck.which} checkpoint`));
          } catch (e) { left = errorText(e); } // the recipe still goes out, without the policy, and the page says why
          deps.download(`${folder}.py`, new Blob([recipeBundle(files, folder)], { type: 'text/x-python' }));
          if (left) set({ notice: `Exported "${meta.name}" for TRL without policy/: ${left}.` });
        } else {
          const bytes = id === get().runId ? await ctx.api.exportCheckpoint(what, id) : await deps.storage.getCheckpoint(id, what);
          if (!bytes) throw new Error(`"${meta.name}" has no ${what} checkpoint stored`);
          deps.download(`${stem}.${what}.safetensors`, new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }));
        }
      });
    },

    async importFiles(files) {
      set({ importError: null, notice: null });
      try {
        const jsons = files.filter((f) => f.name.toLowerCase().endsWith('.json'));
        const cks = files.filter((f) => f.name.toLowerCase().endsWith('.safetensors'));
        const other = files.find((f) => !jsons.includes(f) && !cks.includes(f));
        if (other) throw new RunFileError(`${other.name} was not imported: pick a run's .run.json file and, if you like, its .safetensors checkpoints`);
        if (jsons.length !== 1) throw new RunFileError(jsons.length === 0 ? 'Pick the run\'s .run.json file (its .safetensors checkpoints may come along)' : 'Import one run at a time: pick one .run.json file');
        const jf = jsons[0];
        if (jf.size > MAX_RUN_FILE_BYTES) throw new RunFileError(`${jf.name} was not imported: it is larger than ${MAX_RUN_FILE_BYTES / 1024 / 1024} MB`);
        const run = parseRunFile(await jf.text(), jf.name);
        // a run of someone's own task: its code is shown and runs (to register the task) only once the person confirms
        const code = taskCodeOf(run.meta.config);
        if (code !== undefined && !taskKnown(run.meta.preset, code)) {
          await ctx.askFirst({
            title: 'Import a run of a task of your own?',
            body: `${jf.name} trains the task "${run.meta.preset.slice('task-'.length)}", whose code (below) comes with it. It runs in a sandbox, without the network, your stored runs or this page; read it before you import the run.`,
            confirmLabel: 'Import and load its task', code,
          }, async () => {
            try { await presetOfTask(ctx, run.meta.preset, code); } catch (e) { set({ importError: `${jf.name} was not imported: its task ${errorText(e)}` }); return; }
            await get().importFiles(files);
          }, true);
          return;
        }
        const checkpoints: { which: CheckpointKind; bytes: Uint8Array }[] = [];
        const notices: string[] = run.filled.length ? [`written by an earlier version, it lacked ${run.filled.join(', ')}; ${run.filled.length > 1 ? 'they take their defaults' : 'it takes its default'}`] : [];
        for (const f of cks) {
          if (f.size > MAX_CHECKPOINT_BYTES) throw new RunFileError(`${f.name} was not imported: it is larger than ${MAX_CHECKPOINT_BYTES / 1024 / 1024} MB`);
          const bytes = new Uint8Array(await f.arrayBuffer());
          const { which, notice } = checkRunCheckpoint(bytes, run.meta.config, f.name, run.meta.preset);
          if (notice) notices.push(`${f.name}: ${notice}`);
          if (checkpoints.some((c) => c.which === which)) throw new RunFileError(`${f.name} was not imported: two ${which} checkpoints were picked`);
          checkpoints.push({ which, bytes });
        }
        // everything checked: now store it (and take it all back if storing fails)
        const steps = run.metrics.rows > 0 ? run.metrics.last('step') + 1 : run.meta.steps;
        const stepOf = (which: CheckpointKind) => (which === 'best' ? (run.meta.bestEval?.step ?? 0) : steps);
        const same = get().runs.find((r) => sameRun(r, { ...run.meta, steps }));
        if (same) {
          // the same run again: no second copy; checkpoints it lacks are added to it
          const added = checkpoints.filter((c) => same.checkpoints[c.which] === undefined);
          for (const c of added) await deps.storage.putCheckpoint(same.id, c.which, c.bytes);
          if (added.length) ctx.updateMeta(same.id, { checkpoints: { ...same.checkpoints, ...Object.fromEntries(added.map((c) => [c.which, stepOf(c.which)])) } }, true);
          if (same.id !== get().runId && !get().overlay.includes(same.id)) await get().toggleOverlay(same.id);
          set({ importError: `${jf.name} was not imported again: "${same.name}" is already in the runs table (the same run: created at the same moment, ${steps} steps, ${same.evals.length} eval${same.evals.length === 1 ? '' : 's'})${added.length ? `; its ${added.map((c) => c.which).join(' and ')} checkpoint ${added.length > 1 ? 'were' : 'was'} added to it` : ''}. It is shown on the charts.` });
          return;
        }
        const name = freeName(run.meta.name, get().runs.map((r) => r.name));
        if (name !== run.meta.name) notices.push(`a run named "${run.meta.name}" is already in the runs table, so this one is called "${name}"`);
        const id = `import-${deps.now().toString(36)}-${Math.floor(Math.random() * 0x7fffffff).toString(36)}`;
        const stored: Record<string, number> = {};
        for (const c of checkpoints) stored[c.which] = stepOf(c.which);
        const meta: RunMeta = { ...run.meta, name, id, colorIndex: ctx.nextColor(), checkpoints: stored };
        try {
          await deps.storage.putRun(meta);
          if (run.metrics.rows > 0) await deps.storage.appendMetrics(id, run.metrics.toArray(), run.metrics.rows);
          for (const c of checkpoints) await deps.storage.putCheckpoint(id, c.which, c.bytes);
        } catch (e) {
          await deps.storage.deleteRun(id).catch(() => undefined);
          throw new Error(`storing the imported run failed (${errorText(e)}); nothing was kept`);
        }
        deps.hub.set(id, run.metrics);
        ctx.addRun(meta);
        set({ overlay: [...get().overlay, id], notice: `Imported "${meta.name}": ${run.metrics.rows} steps, ${meta.evals.length} evals${checkpoints.length ? `, ${checkpoints.map((c) => c.which).join(' and ')} checkpoint` : ''}.${notices.map((n) => ` Notice: ${n}.`).join('')}` });
      } catch (e) {
        set({ importError: errorText(e) });
      }
    },

    async loadRunCheckpoint(id, which) {
      await ctx.guard(async () => {
        const meta = find(id);
        const bytes = await deps.storage.getCheckpoint(id, which);
        if (!bytes) throw new Error(`"${meta.name}" has no ${which} checkpoint stored`);
        await ctx.askFirst({
          title: `Continue from "${meta.name}"?`,
          body: `A new run starts from its ${which} weights (step ${meta.checkpoints[which] ?? '?'}) with its settings. The current run (${ctx.currentSteps()} steps) stays in the runs table.`,
          confirmLabel: 'Load weights',
        }, async () => {
          await ctx.finishCurrent();
          ctx.overlayForNewRun();
          set({ population: null }); // one run goes on from those weights
          set({ busy: `Loading the ${which} weights of "${meta.name}"…` });
          try {
            ctx.applySnapshot(await ctx.api.loadCheckpoint(bytes));
          } finally {
            set({ busy: null });
          }
          set({ notice: `Loaded the ${which} weights of "${meta.name}"; press Start to train on from them.` });
        }, ctx.currentSteps() > 0);
      });
    },

    dismissNotice() { set({ notice: null, importError: null }); },
  };
}

/** The task of this preset name is registered here with this very code (a link or file with other code asks again). */
function taskKnown(preset: string, code: string): boolean {
  try { return taskCodeOf(presetConfig(findPreset(preset))) === code; } catch { return false; }
}
