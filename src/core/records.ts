// The stored shapes the doors read (a signed-in user, a generation): types only, so a door never reaches the database.
export type { GenerationEntity as GenerationRecord, UserEntity as UserRecord } from '../db/entities';
