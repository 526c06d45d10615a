// The value of a `matrix` channel: the ID of the room the daemon's account
// posts to. An alias names a room only until it is moved, so the stored
// value is always the ID that joining the alias answered with. Pure.
import { ValueError } from '../value-rules.js';

const ROOM_ID_RE = /^![^\s:]+:\S+$/;
const ALIAS_RE = /^#[^\s:]+:\S+$/;

export function isMatrixAlias(value: string): boolean {
  return ALIAS_RE.test(value);
}

export function isMatrixRoomId(value: string): boolean {
  return ROOM_ID_RE.test(value);
}

/** A room ID (`!abc:example.org`); an alias is joined by `checkd channel create`, which stores the ID. */
export function parseMatrixValue(value: string): string {
  if (isMatrixAlias(value)) {
    throw new ValueError('--value for a matrix channel: a room alias (#room:server) is joined by checkd channel create; the stored value is the room ID');
  }
  if (!isMatrixRoomId(value)) throw new ValueError(`--value for a matrix channel must be a room ID like !abc:example.org or an alias like #ops:example.org, got "${value}"`);
  return value;
}
