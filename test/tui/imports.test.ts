// checktop's module graph, read from the source: no module imports itself
// through others, and of the daemon checktop uses only the domain; the proto
// loader and message shapes it shares with the server are in proto/.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TUI = join(ROOT, 'tui');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The repository-relative source file each relative import (static or dynamic, type-only too) of `file` names. */
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

const graph = new Map(sources(TUI).map((f) => [relative(ROOT, f), importsOf(f)]));

describe('checktop modules', () => {
  it('import each other without cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'visiting') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' → '));
        return;
      }
      state.set(file, 'visiting');
      for (const dep of graph.get(file) ?? []) if (graph.has(dep)) visit(dep, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('use only the domain of the daemon, and proto/ for what they share with the server', () => {
    const outside = [...graph].flatMap(([file, deps]) =>
      deps.filter((d) => !d.startsWith('tui/')).map((d) => `${file} → ${d}`),
    );
    expect(outside.length).toBeGreaterThan(0);
    const target = (edge: string) => edge.split(' → ')[1]!;
    const stray = outside.filter((edge) => !target(edge).startsWith('daemon/domain/') && !target(edge).startsWith('proto/'));
    expect(stray).toEqual([]);
    // The wire shapes and the loader come from proto/, and proto/ itself needs nothing of the daemon or checktop.
    expect(outside.filter((edge) => target(edge).startsWith('proto/')).length).toBeGreaterThan(0);
    const shared = sources(join(ROOT, 'proto')).flatMap((f) => importsOf(f).map((d) => `${relative(ROOT, f)} → ${d}`));
    expect(shared.filter((edge) => !target(edge).startsWith('proto/'))).toEqual([]);
  });
});
