// Where checktop finds its projects and keys: the config file in the XDG
// config directory, key files, the environment; files that hold keys must be
// the owner's alone.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultConfigPath, keysOfFile, resolveProjects } from '../../tui/config.js';
import { tempDir } from '../helpers/temp.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(32);
const KEY_C = 'c'.repeat(32);

function home() {
  const dir = tempDir('checktop-config-');
  mkdirSync(join(dir, '.config', 'checkd'), { recursive: true });
  return dir;
}

function write(path: string, text: string, mode = 0o600): string {
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

describe('checktop projects', () => {
  it('the config file lives in $XDG_CONFIG_HOME/checkd, ~/.config by default', () => {
    expect(defaultConfigPath({ HOME: '/home/op' })).toBe('/home/op/.config/checkd/checktop.json');
    expect(defaultConfigPath({ HOME: '/home/op', XDG_CONFIG_HOME: '/etc/xdg-op' })).toBe('/etc/xdg-op/checkd/checktop.json');
    // A relative XDG_CONFIG_HOME is invalid by the spec and ignored.
    expect(defaultConfigPath({ HOME: '/home/op', XDG_CONFIG_HOME: 'rel' })).toBe('/home/op/.config/checkd/checktop.json');
  });

  it('reads projects from the config file: a key file, an env var or a key, each with its address', () => {
    const h = home();
    write(join(h, '.config/checkd/prod.key'), `# prod, read-write\n${KEY_A}\n`);
    write(
      join(h, '.config/checkd/checktop.json'),
      JSON.stringify({
        grpc: 'unix:/run/checkd/grpc.sock',
        projects: [{ key_file: '~/.config/checkd/prod.key' }, { key_env: 'STAGING_KEY', grpc: '10.0.0.5:50051' }, { key_file: 'prod.key' }, { key: KEY_C }],
      }),
    );
    const projects = resolveProjects({ grpc: '127.0.0.1:50051' }, { HOME: h, STAGING_KEY: KEY_B });
    expect(projects.map((p) => [p.address, p.apiKey])).toEqual([
      ['unix:/run/checkd/grpc.sock', KEY_A],
      ['10.0.0.5:50051', KEY_B],
      // The same key at the same address (prod.key, relative to the config file) only once.
      ['unix:/run/checkd/grpc.sock', KEY_C],
    ]);
    expect(projects[0]!.from).toBe(join(h, '.config/checkd/prod.key'));
  });

  it('adds the keys of a key file, then CHECKD_API_KEY, after the config file’s', () => {
    const h = home();
    write(join(h, '.config/checkd/checktop.json'), JSON.stringify({ projects: [{ key_env: 'ONE' }] }));
    const keyFile = write(join(h, 'keys'), `${KEY_B}\n\n# staging\n${KEY_C}\n`);
    const projects = resolveProjects({ grpc: 'localhost:1', keyFile, apiKey: KEY_A }, { HOME: h, ONE: KEY_A });
    expect(projects.map((p) => p.apiKey)).toEqual([KEY_A, KEY_B, KEY_C]);
    expect(projects.every((p) => p.address === 'localhost:1')).toBe(true);
    // No config file at the default place: fine.
    const empty = tempDir('checktop-home-');
    expect(resolveProjects({ grpc: 'x:1', apiKey: KEY_A }, { HOME: empty })).toHaveLength(1);
    expect(resolveProjects({ grpc: 'x:1' }, { HOME: empty })).toEqual([]);
  });

  it('refuses key files others can read, and a config file holding keys that others can read', () => {
    const h = home();
    const keyFile = write(join(h, 'keys'), `${KEY_A}\n`, 0o644);
    expect(() => resolveProjects({ grpc: 'x:1', keyFile }, { HOME: h })).toThrow(ConfigError);
    expect(() => resolveProjects({ grpc: 'x:1', keyFile }, { HOME: h })).toThrow(/others can read it: chmod 600/);
    const config = join(h, '.config/checkd/checktop.json');
    write(config, JSON.stringify({ projects: [{ key: KEY_A }] }), 0o640);
    expect(() => resolveProjects({ grpc: 'x:1' }, { HOME: h })).toThrow(/config file .* holds API keys/);
    // Without a key in it, the config may be readable: its keys are elsewhere.
    write(config, JSON.stringify({ projects: [{ key_env: 'K' }] }), 0o644);
    expect(resolveProjects({ grpc: 'x:1' }, { HOME: h, K: KEY_B }).map((p) => p.apiKey)).toEqual([KEY_B]);
  });

  it('says what is wrong with a config file', () => {
    const h = home();
    const config = join(h, '.config/checkd/checktop.json');
    const errorOf = (doc: string, env: NodeJS.ProcessEnv = {}) => {
      write(config, doc);
      try {
        resolveProjects({ grpc: 'x:1' }, { HOME: h, ...env });
      } catch (err) {
        return (err as Error).message;
      }
      return null;
    };
    expect(errorOf('{')).toMatch(/not JSON/);
    expect(errorOf('{"projects": 3}')).toMatch(/expected \{"projects": \[\.\.\.\]\}/);
    expect(errorOf('{"projects": [{}]}')).toMatch(/projects\[0\]: expected one of key, key_file and key_env/);
    expect(errorOf('{"projects": [{"key_env": "NOPE"}]}')).toMatch(/the environment has no NOPE/);
    expect(errorOf('{"projects": [{"key_file": "missing"}]}')).toMatch(/no such file/);
    // One asked for by --config must exist.
    expect(() => resolveProjects({ grpc: 'x:1', config: join(h, 'nope.json') }, { HOME: h })).toThrow(/no such file/);
  });

  it('a key file holds one key per line, with comments', () => {
    expect(keysOfFile(`# mine\n  ${KEY_A}  \n\n${KEY_B}\n`)).toEqual([KEY_A, KEY_B]);
  });
});
