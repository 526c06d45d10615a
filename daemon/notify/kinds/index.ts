// The service integrations checkd delivers to besides its own kinds (email,
// webhook, shell, slack, discord, ntfy): upstream's kind codes, and the module
// of each (spec/integrations.md, docs/notifications.md).
import type { ConfiguredChannel, KindModule } from './kind.js';
import { group } from './group.js';

export const INTEGRATION_KINDS = ['group'] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

const MODULES: Record<IntegrationKind, KindModule> = {
  group,
};

export function isIntegrationKind(kind: string): kind is IntegrationKind {
  return Object.hasOwn(MODULES, kind);
}

/** The configured channel of a value; throws ValueError when the value is not one. */
export function parseIntegration(kind: IntegrationKind, value: string): ConfiguredChannel {
  return MODULES[kind].parse(value);
}
