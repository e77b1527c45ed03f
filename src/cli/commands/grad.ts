// `grad --checkpoint F --batch B.json [--out G.safetensors]`: the policy loss of one
// minibatch (docs/rl.md section 4) and its gradient w.r.t. every parameter.
import { GPT } from '../../model/gpt';
import { namedTensors, configToJson } from '../../model/checkpoint';
import { serializeSafetensors } from '../../model/safetensors';
import { AdamW, ADAMW_RL } from '../../model/optimizer';
import { PolicyObjective } from '../../rl/objective';
import { parseBatchFile } from '../../rl/batch';
import { firstNonFiniteTensor } from '../../rl/faults';
import { InputError } from '../../contract/errors';
import { engineName, type FlagSpec, parseFlags, requireFlag } from '../args';
import { chooseBackend, loadCheckpoint, log, prepareOutFile, writeAtomic, BACKEND_HELP } from '../io';
import { readInputJson } from '../inputFile';

export const gradFlags: FlagSpec = {
  checkpoint: { kind: 'string', help: 'a .safetensors checkpoint' },
  batch: { kind: 'string', help: 'the batch file (JSON, docs/cli.md format)' },
  out: { kind: 'string', help: 'where to write the gradients (.safetensors, checkpoint names)' },
  backend: { kind: 'string', help: BACKEND_HELP },
};

export async function grad(argv: string[]): Promise<unknown> {
  const flags = parseFlags(argv, gradFlags, 'grad');
  const ck = loadCheckpoint(requireFlag(flags, 'checkpoint', 'grad'));
  const batchPath = requireFlag(flags, 'batch', 'grad');
  const json = readInputJson(batchPath, 'batch file', 64 << 20);
  const { batch, cfg } = parseBatchFile(json, ck.config.vocabSize, ck.config.blockSize);
  if (flags.out !== undefined) prepareOutFile(String(flags.out));
  const backend = await chooseBackend(flags.backend);
  try {
    const model = new GPT(backend, ck.config, ck.weights);
    const obj = new PolicyObjective(backend);
    const opt = new AdamW(backend, model, ADAMW_RL); // only for its norm, nothing is applied
    model.zeroGrad();
    obj.record(model, batch, cfg);
    opt.measure();
    backend.submit();
    const stats = await obj.readStats(batch);
    const normSq = (await backend.read(opt.normSq))[0];
    const result = {
      backend: engineName(backend.name), loss: stats.loss, policy_loss: stats.policyLoss, kl: stats.kl, grad_norm: Math.sqrt(normSq),
      clip_frac: stats.clipFrac, ratio_mean: stats.ratioMean, ratio_min: stats.ratioMin, ratio_max: stats.ratioMax,
      entropy: stats.entropy, frac_zero_std: stats.fracZeroStd, sequences: batch.S,
    };
    // a non-finite result is an error naming what overflowed, never a null printed with exit 0
    const bad = Object.entries(result).find(([, v]) => typeof v === 'number' && !Number.isFinite(v));
    if (bad) {
      const tensor = firstNonFiniteTensor(ck.config, await backend.read(model.grads));
      throw new InputError(`grad: ${bad[0]} is ${bad[1]} for checkpoint "${flags.checkpoint}" and batch "${batchPath}"${tensor ? `; the first non-finite gradient is ${tensor}'s` : ''} (their values overflow float32 arithmetic)`);
    }
    if (flags.out !== undefined) {
      const g = await backend.read(model.grads);
      writeAtomic(String(flags.out), serializeSafetensors(namedTensors(ck.config, g), { config: configToJson(ck.config), content: 'gradients' }));
      log(`wrote gradients to ${flags.out}`);
    }
    return result;
  } finally {
    backend.destroy();
  }
}
