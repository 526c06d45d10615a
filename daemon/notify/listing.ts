// Each channel of a project with the result of its last delivery: shown by
// `checkd channel list` and served by gRPC ListChannels.
import { NotifyStore, type DeliveryState } from '../store/notify.js';
import type { Store } from '../store/store.js';
import { needsValue, setValueCommand } from '../domain/channel-kinds.js';

export interface ChannelDelivery {
  id: string;
  name: string;
  kind: string;
  createdAt: number;
  /** "never" until something was sent through it; "disabled" while it has no value (needsValue). */
  state: DeliveryState | 'never' | 'disabled';
  error: string;
  lastAttemptAt: number | null;
  lastSuccessAt: number | null;
  lastDurationMs: number | null;
  /** Deliveries waiting in the outbox. */
  pending: number;
}

/** Every channel of a project, in creation order, with its last delivery result. */
export function listChannelDeliveries(store: Store, projectId: string): ChannelDelivery[] {
  const ns = new NotifyStore(store);
  return store.listChannels(projectId).map((c) => {
    const s = ns.channelStatus(c.id);
    const disabled = needsValue(c);
    return {
      id: c.id,
      name: c.name,
      kind: c.kind,
      createdAt: c.createdAt,
      state: disabled ? 'disabled' : (s?.state ?? 'never'),
      error: disabled ? `needs a value: ${setValueCommand(c.id)}` : (s?.error ?? ''),
      lastAttemptAt: s?.at ?? null,
      lastSuccessAt: s?.lastSuccessAt ?? null,
      lastDurationMs: s?.durationMs ?? null,
      pending: ns.pendingCount(c.id),
    };
  });
}

