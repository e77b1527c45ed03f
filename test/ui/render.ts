// Rendering components to HTML in Node (react-dom/server) in a given store
// state, and reading accessible names out of the markup.
import { createElement, type ComponentType } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { createAppStore } from '../../src/store/appStore';
import { MetricsHub } from '../../src/store/metricsHub';
import { MemoryRunStorage } from '../../src/store/runsDb';
import type { AppState } from '../../src/store/types';
import { StoreProvider } from '../../src/ui/storeContext';
import { FakeTrainer, fakeClient } from '../store/fakeClient';

export function render(component: ComponentType, state: Partial<AppState> = {}, hub = new MetricsHub()): string {
  const store = createAppStore({ client: fakeClient(new FakeTrainer()), storage: new MemoryRunStorage(), hub, replaceUrl: () => {}, download: () => {} }, state);
  return renderToStaticMarkup(createElement(StoreProvider, { store, children: createElement(component) }));
}

const decode = (s: string) => s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'");
export const text = (html: string) => decode(html.replace(/<[^>]+>/g, ' ')).replace(/\s+/g, ' ').trim();
const attr = (tag: string, name: string) => { const m = new RegExp(`\\s${name}="([^"]*)"`).exec(tag); return m ? decode(m[1]) : null; };

export interface Control { tag: string; type: string | null; name: string | null }

/** Every input/select/textarea with its accessible name (aria-label, else its <label for>, else a wrapping <label>). */
export function controls(html: string): Control[] {
  const labels = new Map<string, string>();
  for (const m of html.matchAll(/<label[^>]*\sfor="([^"]+)"[^>]*>([\s\S]*?)<\/label>/g)) labels.set(decode(m[1]), text(m[2]));
  const out: Control[] = [];
  for (const m of html.matchAll(/<(input|select|textarea)\b[^>]*>/g)) {
    const t = m[0], id = attr(t, 'id');
    let name = attr(t, 'aria-label') ?? (id ? labels.get(id) ?? null : null);
    if (name === null) {
      // <label>text <input></label>: the text of the label that wraps it
      const before = html.slice(0, m.index);
      const open = before.lastIndexOf('<label'), close = before.lastIndexOf('</label>');
      if (open > close) name = text(html.slice(open, m.index).replace(/^<label[^>]*>/, '')) || null;
      if (name === null && attr(t, 'type') === 'radio') {
        const after = html.slice(m.index + t.length);
        const end = after.indexOf('</label>');
        if (open > close && end >= 0) name = text(after.slice(0, end));
      }
    }
    out.push({ tag: m[1], type: attr(t, 'type'), name });
  }
  return out;
}

export const buttons = (html: string): string[] => [...html.matchAll(/<button\b[^>]*>([\s\S]*?)<\/button>/g)].map((m) => text(m[1]));
