// `checkd channel create --kind matrix --value '#room:server'`: the daemon's
// Matrix account joins the room by its alias, and the channel stores the
// room ID the homeserver answers with (an alias can later point elsewhere).
import { resolveNotifyConfig, type RawNotifyOptions } from '../config/notify.js';
import { isMatrixAlias, matrixJoinAnswer, matrixJoinCall } from '../notify/kinds/matrix.js';
import { httpRequest } from '../notify/transports.js';
import { UsageError } from './admin.js';

/** The room an alias value names, joined; null when the value is not an alias. */
export async function joinMatrixAlias(opts: RawNotifyOptions & { value?: string }): Promise<{ alias: string; roomId: string } | null> {
  const alias = (opts.value ?? '').trim();
  if (!isMatrixAlias(alias)) return null;
  const settings = resolveNotifyConfig(opts, process.env);
  const { matrixHomeserver: homeserver, matrixAccessToken: token } = settings.integrations;
  if (homeserver === null || token === null) {
    throw new UsageError(
      `to join ${alias}, checkd needs the Matrix account: --matrix-homeserver and --matrix-access-token (or CHECKD_MATRIX_HOMESERVER and CHECKD_MATRIX_ACCESS_TOKEN)`,
    );
  }
  const joined = matrixJoinAnswer(await httpRequest(matrixJoinCall(alias, homeserver, token), settings));
  if (!joined.ok) throw new UsageError(`the Matrix account could not join ${alias} (invite it first if the room is not public): ${joined.error}`);
  return { alias, roomId: joined.roomId };
}
