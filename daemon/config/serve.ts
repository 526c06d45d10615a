// Settings of `checkd serve` (contract.md), resolved from the table in
// settings.ts: flags win over env vars, env vars over defaults. Everything is
// validated here, before anything is opened.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { NotifyConfig } from './notify.js';
import { resolveSettings, SERVE_SETTINGS, type RawSettings, type ServeSettingValues } from './settings.js';
import { ConfigError, parseHostPort, type Source } from './values.js';

export interface ServeConfig extends ServeSettingValues {
  /** Notifier settings (notify.ts); defaults when absent. */
  notify?: NotifyConfig;
  /** How often --heartbeat-url is pinged; a minute when absent (tests shorten it). */
  heartbeatEveryMs?: number;
  /** How often the storage alarm looks at the disk; STORAGE_POLL_MS when absent (tests shorten it). */
  storagePollMs?: number;
  /** How long the monitor reads checks before the daemon serves; LOAD_BUDGET_MS when absent (tests shorten it). */
  monitorLoadBudgetMs?: number;
}

/** The default of each serve setting, as text (settings.ts). */
export const DEFAULTS = Object.fromEntries(
  Object.entries(SERVE_SETTINGS).map(([key, setting]) => [key, setting.default]),
) as { readonly [K in keyof ServeSettingValues]: string };

/** The flags of `serve` as commander hands them over (settings.ts). */
export type RawServeOptions = RawSettings;

export function resolveServeConfig(opts: RawServeOptions, env: NodeJS.ProcessEnv): ServeConfig {
  return resolveSettings(SERVE_SETTINGS, opts, env);
}

/** The domain of ping e-mail addresses: --ping-email-domain, else the host of --base-url. */
export function pingEmailDomainOf(config: Pick<ServeConfig, 'pingEmailDomain' | 'baseUrl'>): string {
  return config.pingEmailDomain ?? new URL(config.baseUrl).hostname;
}

/**
 * The host names of the listen addresses must resolve: checked before the data
 * dir is opened, so that a typo is a bad flag (exit 2, nothing written) rather
 * than a failure after start-up has begun.
 */
export async function checkListenHosts(config: ServeConfig): Promise<void> {
  const hosts: Array<[string, Source]> = [[config.listen.host, '--listen']];
  if (!config.grpcListen.startsWith('unix:')) {
    hosts.push([parseHostPort(config.grpcListen, '--grpc-listen').host, '--grpc-listen']);
  }
  if (config.smtpListen) hosts.push([config.smtpListen.host, '--smtp-listen']);
  for (const [host, what] of hosts) {
    if (isIP(host) !== 0) continue;
    try {
      await lookup(host);
    } catch {
      throw new ConfigError(`${what}: cannot resolve host name "${host}"`);
    }
  }
}
