// Shared pieces of the "run it as a service" suite: the unit file parsed the
// way the tests need it, required system tools, a fake NOTIFY_SOCKET (python3),
// Prometheus text parsing. Not a test file.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { onCleanup } from '../helpers/cleanup.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { waitFor } from '../helpers/wait.js';

export const UNIT_PATH = join(REPO_ROOT, 'systemd/checkd.service');
export const ENV_EXAMPLE_PATH = join(REPO_ROOT, 'systemd/checkd.env.example');
export const INSTALL_SH = join(REPO_ROOT, 'systemd/install.sh');

/** Path of a system tool, or an error that says how to get it (no skipping). */
export function requireTool(name: string, pkg: string): string {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${name} is not installed; it comes with the Debian package "${pkg}" (.ci/run installs it)`);
  }
}

export interface Unit {
  /** Every value of `key` in `[section]`, in file order. */
  all(section: string, key: string): string[];
  /** The last value of `key` in `[section]` (systemd: a later assignment wins), or undefined. */
  get(section: string, key: string): string | undefined;
}

export function parseUnit(text: string): Unit {
  const entries: Array<{ section: string; key: string; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const s = /^\[(.+)\]$/.exec(line);
    if (s) {
      section = s[1]!;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    entries.push({ section, key: line.slice(0, eq).trim(), value: line.slice(eq + 1).trim() });
  }
  const all = (sec: string, key: string) => entries.filter((e) => e.section === sec && e.key === key).map((e) => e.value);
  return { all, get: (sec, key) => all(sec, key).at(-1) };
}

export function readUnit(): Unit {
  return parseUnit(readFileSync(UNIT_PATH, 'utf8'));
}

/** Words of a command line or an Environment= value, with "double quotes". */
export function splitWords(value: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = re.exec(value); m; m = re.exec(value)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return out;
}

/** The unit's Environment= assignments, in order (later wins). */
export function unitEnvironment(unit: Unit): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of unit.all('Service', 'Environment')) {
    for (const word of splitWords(value)) {
      const eq = word.indexOf('=');
      if (eq > 0) env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  return env;
}

/** VAR=value lines of an EnvironmentFile (comments and blank lines skipped). */
export function parseEnvFile(text: string): { active: Record<string, string>; commented: string[] } {
  const active: Record<string, string> = {};
  const commented: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const c = /^#\s*([A-Z][A-Z0-9_]*)=/.exec(line);
    if (c) {
      commented.push(c[1]!);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq > 0) active[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return { active, commented };
}


// ---- a fake $NOTIFY_SOCKET -----------------------------------------------------

/**
 * A datagram listener on `socketPath` (python3: Node has no AF_UNIX datagram
 * sockets). For every datagram it prints one JSON line, with the sender's PID
 * from its credentials (what systemd's NotifyAccess= goes by). When a datagram says
 * READY=1 it probes, before printing and before reading the next datagram,
 * whether HTTP answers on 127.0.0.1:httpPort (a GET /metrics) and whether the
 * gRPC unix socket accepts a connection and answers the HTTP/2 preface with a
 * SETTINGS frame, so the result is the state at the moment READY=1 arrived.
 */
const LISTENER_PY = String.raw`
import http.client, json, socket, struct, sys
sock_path, http_port, grpc_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
s.bind(sock_path)
print(json.dumps({"event": "listening"}), flush=True)
while True:
    raw, anc, _flags, _addr = s.recvmsg(65536, socket.CMSG_SPACE(12))
    data = raw.decode("utf-8", "replace")
    pid = None
    for level, kind, cdata in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("3i", cdata[:12])[0]
    fields = {}
    for line in data.split("\n"):
        if "=" in line:
            k, v = line.split("=", 1)
            fields[k] = v
    probe = None
    if fields.get("READY") == "1":
        probe = {}
        try:
            c = http.client.HTTPConnection("127.0.0.1", http_port, timeout=2)
            c.request("GET", "/metrics")
            probe["http"] = c.getresponse().status
            c.close()
        except Exception as e:
            probe["http"] = "error: " + repr(e)
        try:
            u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            u.settimeout(2)
            u.connect(grpc_path)
            u.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            head = u.recv(9)
            probe["grpc"] = "http2-settings" if len(head) == 9 and head[3] == 4 else "unexpected " + head.hex()
            u.close()
        except Exception as e:
            probe["grpc"] = "error: " + repr(e)
    print(json.dumps({"event": "message", "raw": data, "fields": fields, "probe": probe, "pid": pid}), flush=True)
`;

export interface NotifyMessage {
  raw: string;
  fields: Record<string, string>;
  probe: { http: number | string; grpc: string } | null;
  /** The PID of the process that sent it. */
  pid: number | null;
  /** performance.now() in the test process when the line arrived. */
  at: number;
}

export interface NotifyListener {
  messages: NotifyMessage[];
  next(pred: (m: NotifyMessage) => boolean, what: string, timeoutMs?: number): Promise<NotifyMessage>;
}

/** The listener as a child process, killed at cleanup. */
export async function startNotifyListener(socketPath: string, httpPort: number, grpcSocket: string): Promise<NotifyListener> {
  const python = requireTool('python3', 'python3');
  const proc: ChildProcessWithoutNullStreams = spawn(python, ['-c', LISTENER_PY, socketPath, String(httpPort), grpcSocket], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(proc, 'exit');
  onCleanup(async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await exited;
  });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const messages: NotifyMessage[] = [];
  let listening = false;
  createInterface({ input: proc.stdout }).on('line', (line) => {
    const doc = JSON.parse(line) as { event: string } & Omit<NotifyMessage, 'at'>;
    if (doc.event === 'listening') listening = true;
    else messages.push({ raw: doc.raw, fields: doc.fields, probe: doc.probe, pid: doc.pid, at: performance.now() });
  });
  await waitFor(() => listening || (proc.exitCode !== null ? Promise.reject(new Error(`listener died: ${stderr}`)) : undefined), {
    what: 'the notify listener',
  });
  return {
    messages,
    next: (pred, what, timeoutMs = 15_000) => waitFor(() => messages.find(pred), { what, timeout: timeoutMs }),
  };
}

// ---- Prometheus text format --------------------------------------------------------

/** `name{a="x",b="y"}` (labels sorted) → value, from the text exposition format. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not a metrics line: ${line}`);
    const labels: string[] = [];
    if (m[2]) for (const l of m[2].matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels.push(`${l[1]}="${l[2]}"`);
    labels.sort();
    out.set(labels.length ? `${m[1]}{${labels.join(',')}}` : m[1]!, Number(m[3]));
  }
  return out;
}

/** The key parseMetrics uses for a series. */
export function series(name: string, labels: Record<string, string> = {}): string {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  return l.length ? `${name}{${l.join(',')}}` : name;
}
