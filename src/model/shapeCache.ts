// What a GPT keeps by shape (activation sets, KV caches, members' row offsets): least recently used out first.

/** Row offsets a population GPT keeps (by member counts); far more than one step records. */
export const MEMBERS_CACHED = 256;
/**
 * Activation sets and KV caches kept by shape, least recently used out first: an RL step uses up to 4 and 3, an
 * evaluation 2 and 2, but the shapes drift as messages change length (a relay-noisy-dr run saw 24 in 120 steps),
 * and every set kept stays allocated. Only on engines whose ops finish before they return (the CPU engines): a
 * WebGPU buffer freed here could be handed to a write that runs before the queued work still reading it.
 */
export const KEEP_ACTS = 8, KEEP_KV = 6;

/** `m`'s entry for `key`, moved to the newest end (a Map iterates in insertion order); undefined when absent. */
export function touch<V>(m: Map<string, V>, key: string): V | undefined {
  const v = m.get(key);
  if (v !== undefined) { m.delete(key); m.set(key, v); }
  return v;
}

/**
 * Bytes left free besides a new set or cache where the backend's memory has a budget (Backend.memoryRoom): older
 * sets go first until that much is left, so the largest model's sets (hundreds of MiB each: 8 x 8 x 256 at P32 x G8
 * passed the engine's 4 GiB within 24 steps) fit, and nothing is freed while there is room.
 */
export const ROOM_LEFT = 256 * 2 ** 20;

/** Frees `m`'s oldest entries until fewer than `keep` remain and, while room() is under `need` bytes, more; never `pinned` ones. */
export function evictOldest<V>(m: Map<string, V>, keep: number, pinned: (key: string, v: V) => boolean, free: (v: V) => void,
  room: () => number = () => Infinity, need = 0): void {
  for (const [k, v] of m) if ((m.size >= keep || room() < need) && !pinned(k, v)) { free(v); m.delete(k); }
}
