// The runs table's row actions: one menu button per row (named for its run)
// instead of a stack of buttons, the actions inside as menu items with the
// names they had, a pin beside the overlay checkbox; the menu's arrow keys.
import { describe, expect, it } from 'vitest';
import { findPreset, presetConfig } from '../../src/envs/presets';
import type { RunMeta } from '../../src/store/runTypes';
import { menuFocusAfter } from '../../src/ui/RowMenu';
import { RunsTable } from '../../src/ui/RunsTable';
import { render } from './render';

const config = presetConfig(findPreset('relay-silence'));
const run = (id: string, name: string, extra: Partial<RunMeta> = {}): RunMeta => ({
  id, name, preset: 'relay-silence', config, createdAt: 0, updatedAt: 0, status: 'paused', steps: 10, evals: [], bestEval: null, flags: [],
  warmStart: null, backend: 'webgpu', checkpoints: { last: 10, best: 5 }, colorIndex: 0, source: 'trained', ...extra,
});

const rowOf = (h: string, name: string) => [...h.matchAll(/<tr\b[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => m[1]).find((r) => r.includes(name))!;
const visibleButtons = (row: string) => {
  const withoutMenus = row.replace(/<ul role="menu"[\s\S]*?<\/ul>/g, '');
  return [...withoutMenus.matchAll(/<button\b([^>]*)>/g)].map((m) => /aria-label="([^"]*)"/.exec(m[1])?.[1] ?? '');
};

describe('row actions in one menu', () => {
  const h = render(RunsTable, { runs: [run('old', 'older run'), run('cur', 'this run')], runId: 'cur', overlay: ['old'], pinned: ['old'] });
  it('each row shows two buttons: its pin and its actions menu', () => {
    expect(visibleButtons(rowOf(h, 'older run'))).toEqual(['Pin older run', 'Actions for older run']);
    expect(visibleButtons(rowOf(h, 'this run'))).toEqual(['Pin this run', 'Actions for this run']);
  });
  it('the menu button says it opens a menu, closed at first; the menu holds every action by its old name', () => {
    const row = rowOf(h, 'older run');
    const btn = /<button[^>]*aria-label="Actions for older run"[^>]*>/.exec(row)![0];
    expect(btn).toMatch(/aria-haspopup="menu"/);
    expect(btn).toMatch(/aria-expanded="false"/);
    const controls = /aria-controls="([^"]+)"/.exec(btn)![1];
    const menu = new RegExp(`<ul role="menu" id="${controls.replace(/[^\w-]/g, '\\$&')}"[^>]*hidden=""[^>]*>([\\s\\S]*?)</ul>`).exec(row)!;
    const items = [...menu[1].matchAll(/<button[^>]*role="menuitem"[^>]*aria-label="([^"]*)"/g)].map((m) => m[1]);
    expect(items).toEqual(['Rename older run', 'Duplicate older run', 'Twin of older run with another loss', 'Export JSON of older run', 'Export CSV of older run', 'Export TRL of older run', 'Export verl of older run',
      'Export checkpoint of older run', 'Export best checkpoint of older run', 'Load weights of older run', 'Delete older run']);
    expect(menu[1]).toMatch(/tabindex="-1"/);
  });
  it('the pin is a toggle: pressed for a pinned run', () => {
    expect(rowOf(h, 'older run')).toMatch(/<button[^>]*aria-pressed="true"[^>]*aria-label="Pin older run"/);
    expect(rowOf(h, 'this run')).toMatch(/<button[^>]*aria-pressed="false"[^>]*aria-label="Pin this run"/);
  });
  it('the current run cannot be deleted from its menu', () => {
    expect(rowOf(h, 'this run')).toMatch(/<button[^>]*role="menuitem"[^>]*aria-label="Delete this run"[^>]*disabled=""/);
  });
});

describe('the menu\'s keys', () => {
  const all = [true, true, true, true];
  it('arrows move and wrap; Home and End go to the ends; other keys do not move', () => {
    expect(menuFocusAfter('ArrowDown', -1, all)).toBe(0);
    expect(menuFocusAfter('ArrowDown', 3, all)).toBe(0);
    expect(menuFocusAfter('ArrowUp', 0, all)).toBe(3);
    expect(menuFocusAfter('Home', 2, all)).toBe(0);
    expect(menuFocusAfter('End', 0, all)).toBe(3);
    expect(menuFocusAfter('a', 0, all)).toBeNull();
  });
  it('disabled items are skipped', () => {
    expect(menuFocusAfter('ArrowDown', 0, [true, false, false, true])).toBe(3);
    expect(menuFocusAfter('ArrowUp', 0, [true, false, true, false])).toBe(2);
    expect(menuFocusAfter('End', 0, [true, true, false])).toBe(1);
    expect(menuFocusAfter('ArrowDown', -1, [false, false])).toBeNull();
  });
});
