// The module graph of daemon/ and tui/, read from the source with type-only
// imports included (ESLint's no-cycle skips those): no module reaches itself
// through others, checktop uses only the domain of the daemon, and the
// domain imports nothing outside itself.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The repository-relative source file each relative import (static, dynamic, type-only) of `file` names. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1]!);
  return specs.map((spec) => {
    const target = resolve(dirname(file), spec);
    const ts = target.replace(/\.js$/, '.ts');
    const found = [ts, `${ts}x`].find((c) => existsSync(c));
    if (!found) throw new Error(`${relative(ROOT, file)}: cannot resolve ${spec}`);
    return relative(ROOT, found);
  });
}

const roots = ['daemon', 'tui', 'proto'].map((d) => join(ROOT, d)).filter((d) => existsSync(d));
const graph = new Map(roots.flatMap(sources).map((f) => [relative(ROOT, f), importsOf(f)]));

function cycles(): string[] {
  const found: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') {
      found.push([...path.slice(path.indexOf(file)), file].join(' → '));
      return;
    }
    state.set(file, 'visiting');
    for (const dep of graph.get(file) ?? []) if (graph.has(dep)) visit(dep, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  return found;
}

const edges = () => [...graph].flatMap(([file, deps]) => deps.map((dep) => ({ file, dep })));

describe('the module graph', () => {
  it('has no import cycle, type-only imports included', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles()).toEqual([]);
  });

  it('checktop imports of the daemon only its domain', () => {
    const stray = edges().filter(({ file, dep }) => file.startsWith('tui/') && dep.startsWith('daemon/') && !dep.startsWith('daemon/domain/'));
    expect(stray.map((e) => `${e.file} → ${e.dep}`)).toEqual([]);
  });

  it('the domain imports nothing outside itself', () => {
    const stray = edges().filter(({ file, dep }) => file.startsWith('daemon/domain/') && !dep.startsWith('daemon/domain/'));
    expect(stray.map((e) => `${e.file} → ${e.dep}`)).toEqual([]);
  });
});
