// sd_notify(3) for Type=notify units. Node has no AF_UNIX datagram socket, so
// the message goes through the unix-dgram addon (sent from the daemon's own
// PID: no race, works with the unit's NotifyAccess=main). If the addon could
// not be built on this machine, fall back to the systemd-notify tool, a child
// process, which needs NotifyAccess=all (install.sh adds that drop-in then).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Logger } from './log.js';

interface DgramSocket {
  on(event: 'error', fn: (err: Error) => void): void;
  send(buf: Buffer, offset: number, length: number, path: string, cb?: (err?: Error) => void): void;
  close(): void;
}

function loadAddon(): { createSocket(type: 'unix_dgram'): DgramSocket } | null {
  try {
    return createRequire(import.meta.url)('unix-dgram');
  } catch {
    return null;
  }
}

/** Send `state` (e.g. "READY=1") to $NOTIFY_SOCKET. Resolves false when not under systemd. */
export async function sdNotify(state: string, logger: Logger, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const target = env.NOTIFY_SOCKET;
  if (!target) return false;
  const path = target.startsWith('@') ? '\0' + target.slice(1) : target;
  const addon = loadAddon();
  if (addon) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = addon.createSocket('unix_dgram');
      sock.on('error', (err) => {
        logger.warn({ err, state }, 'sd_notify failed');
        resolve(false);
      });
      const buf = Buffer.from(state);
      sock.send(buf, 0, buf.length, path, (err) => {
        sock.close();
        resolve(!err);
      });
    });
    if (ok) return true;
  }
  return new Promise<boolean>((resolve) => {
    execFile('systemd-notify', [`--pid=${process.pid}`, ...state.split('\n')], (err) => {
      if (err) logger.warn({ err, state }, 'systemd-notify failed');
      resolve(!err);
    });
  });
}

/**
 * The interval of the unit's watchdog (WatchdogSec=) in milliseconds, or null
 * when there is none for this process: systemd sets WATCHDOG_USEC, and
 * WATCHDOG_PID when the watchdog is meant for one process (sd_watchdog_enabled(3)).
 */
export function watchdogIntervalMs(env: NodeJS.ProcessEnv = process.env): number | null {
  const usec = Number(env.WATCHDOG_USEC);
  if (!env.WATCHDOG_USEC || !Number.isSafeInteger(usec) || usec <= 0) return null;
  if (env.WATCHDOG_PID && Number(env.WATCHDOG_PID) !== process.pid) return null;
  return usec / 1000;
}
