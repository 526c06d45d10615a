// `checkd channel create --kind matrix --value '#room:server'`: the daemon's
// Matrix account joins the room by its alias, and the channel stores the
// room ID the homeserver answers with (an alias can later point elsewhere).
import { resolveNotifyConfig, type RawNotifyOptions } from '../config/notify.js';
import { INTEGRATION_SETTINGS } from '../config/settings.js';
import { isMatrixAlias } from '../domain/integrations/matrix.js';
import { matrixJoinAnswer, matrixJoinCall } from '../notify/kinds/matrix.js';
import { httpRequest } from '../notify/transports.js';
import { UsageError } from './usage-error.js';

/** The room an alias value names, joined; null when the value is not an alias. */
export async function joinMatrixAlias(opts: RawNotifyOptions & { value?: string }): Promise<{ alias: string; roomId: string } | null> {
  const alias = (opts.value ?? '').trim();
  if (!isMatrixAlias(alias)) return null;
  const settings = resolveNotifyConfig(opts, process.env);
  const { matrixHomeserver: homeserver, matrixAccessToken: token } = settings.integrations;
  if (homeserver === null || token === null) {
    const { matrixHomeserver: hs, matrixAccessToken: at } = INTEGRATION_SETTINGS;
    throw new UsageError(`to join ${alias}, checkd needs the Matrix account: ${hs.flag} and ${at.flag} (or ${hs.env} and ${at.env})`);
  }
  const joined = matrixJoinAnswer(await httpRequest(matrixJoinCall(alias, homeserver, token), settings));
  if (!joined.ok) throw new UsageError(`the Matrix account could not join ${alias} (invite it first if the room is not public): ${joined.error}`);
  return { alias, roomId: joined.roomId };
}
