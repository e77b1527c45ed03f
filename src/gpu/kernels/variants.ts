// Every pipeline variant the kernel wrappers can dispatch on an adapter of one kind, so a backend
// creates them all at load (PipelineCache.prepare) instead of on first use mid-step. It follows the
// wrappers' choices: the row kernels' layouts (rows.ts), the matmul tiles (matmulPlan.ts: 16, 32 or
// 64 rows and columns), the layernorm column-sum layout (layernorm.ts). A variant missing here still
// works (created on first use); test/gpu/pipelines.test.ts checks a step creates none late.
import type { PipelineVariant } from '../pipelines';
import { MAX_WG, lanesLayout, type RowLayout, type RowMode } from './rows';

/** The row layouts of a mode: 'single' has one; 'lanes' one per power-of-two TPR up to MAX_WG. */
export function rowLayouts(mode: RowMode): RowLayout[] {
  if (mode === 'single') return [{ WG: 64, TPR: 1 }];
  const layouts: RowLayout[] = [];
  for (let len = 1; ; len *= 2) {
    const l = lanesLayout(len, 1);
    layouts.push(l);
    if (l.TPR >= MAX_WG) return layouts;
  }
}

export function pipelineVariants(mode: RowMode): PipelineVariant[] {
  const v: PipelineVariant[] = [];
  const add = (shader: string, entries: string[], constants?: Record<string, number>) => {
    for (const entry of entries) v.push(constants ? { shader, entry, constants } : { shader, entry });
  };
  const rows = rowLayouts(mode);

  add('adamw', ['sumsq_partial', 'sumsq_final', 'sumsq_single', 'clip_scale']);
  add('adamw', ['adamw_update', 'adamw_clip_update'], { WG: 256 });

  if (mode === 'lanes') {
    for (const { WG, TPR } of rows) add('attention', ['attention_backward_dpreatt'], { WG, TPR });
    add('attention', ['attention_forward_tiled', 'attention_backward_dqkv_tiled']);
    add('attention', ['attention_backward_bh'], { WG: 256, TPR: 256 });
  } else {
    for (const { WG, TPR } of rows) add('attention', ['attention_forward_rows'], { WG, TPR });
    add('attention', ['attention_backward_bh'], { WG: 16, TPR: 1 });
  }

  add('decode', ['embedding_last', 'copy_rows', 'attention_decode_serial'], { WG: 64 });
  add('decode', ['attention_decode']);
  add('embedding', ['embedding_forward', 'embedding_forward_sort', 'embedding_backward', 'embedding_sort'], { WG: 256 });
  add('gelu', ['gelu_forward', 'gelu_backward'], { WG: 256 });

  for (const { WG, TPR } of rows) add('layernorm', ['layernorm_forward', 'layernorm_backward_dinp'], { WG, TPR });
  for (const { WG, TPR } of rows) add('layernorm', ['layernorm_backward_fused'], { WG, TPR, CX: 64 });
  if (mode === 'single') add('layernorm', ['layernorm_backward_params'], { WG: 64, CX: 64 });
  else for (let CX = 1; CX <= 64; CX *= 2) add('layernorm', ['layernorm_backward_params'], { WG: 256, CX });
  add('layernorm', ['layernorm_backward_params_reduce'], { WG: 64 });

  for (const { WG, TPR } of rows) {
    add('logsoftmax', ['logprob_forward', 'logprob_backward', 'crossentropy_forward', 'crossentropy_backward'], { WG, TPR });
  }

  for (const RM of [1, 2, 4]) for (const RN of [1, 2, 4]) add('matmul', ['matmul_tiled'], { RM, RN });
  add('matmul', ['matmul_splitk_sum']);
  for (const RM of [1, 2, 4]) for (const RN of [1, 2, 4]) add('linear_backward', ['linear_backward'], { RM, RN });
  add('linear_backward', ['linear_backward_sum']);
  for (const RM of [1, 2, 4]) for (const RN of [1, 2, 4]) add('layernorm_matmul', ['layernorm_matmul'], { RM, RN });

  add('residual', ['residual_forward', 'accumulate_forward', 'copy_forward', 'zero_forward'], { WG: 256 });
  add('rl', ['gather_forward', 'group_normalize', 'seq_ratio', 'clip_loss_seq', 'clip_grad_seq', 'clip_loss_tok', 'clip_grad_tok'], { WG: 64 });
  add('rl', ['rl_stats_seq', 'rl_stats_tok', 'policy_loss']);
  add('sample', ['sample_next'], { WG: 64 });
  add('sample', ['decode_sample']);
  return v;
}
