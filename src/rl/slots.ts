// Policy slots: an environment's roles map to slots, each a model that is trainable or
// frozen (AgentPO's collaborator beside a frozen actor).
import type { Environment } from '../envs/types';

/** A policy slot's start: trainable or frozen, and its weights (absent: a fresh init). */
export interface SlotInit { trainable: boolean; weights?: Float32Array }
export type TrainerSlots = Record<string, SlotInit>;

/** The env's slots (every role in 'policy' when it declares none). */
export function slotNames(env: Environment<any, any>): string[] {
  return env.roleSlot ? [...new Set(Object.values(env.roleSlot))] : ['policy'];
}

