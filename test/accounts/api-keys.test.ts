import { ApiKeyService, isWellFormedApiKey } from '../../src/core/accounts/api-keys';
import { PlanDirectory } from '../../src/core/accounts/plans';
import { createUser } from '../../src/core/accounts/users';
import { UserEntity } from '../../src/db/entities';
import { FastSql } from '../../src/db/fast-sql';
import { createTestDatabase, TestDatabase } from '../support/databases';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

test('verifyWithOwner loads the same user as the repository, field for field, in one query', async () => {
  const created = await createUser(db.dataSource, new PlanDirectory(db.dataSource), {
    name: 'Keyholder',
    email: 'k@example.com',
    phone: '+79990001122',
    telegramId: 777,
    messengerUsername: 'kh',
    plan: 'vip',
  });
  const service = new ApiKeyService(db.dataSource, 'pepper', { sql: FastSql.of(db.dataSource) });
  const { key, id } = await service.create(created.id, 'k');
  expect(isWellFormedApiKey(key)).toBe(true);
  const found = await service.verifyWithOwner(key);
  const expected = await db.dataSource.getRepository(UserEntity).findOneByOrFail({ id: created.id });
  expect(found?.key.id).toBe(id);
  expect({ ...found!.user }).toEqual({ ...expected });
  // A key with a valid shape but a wrong checksum, or another pepper, is refused.
  expect(await service.verifyWithOwner(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A'))).toBeNull();
  expect(await new ApiKeyService(db.dataSource, 'other').verifyWithOwner(key)).toBeNull();
});
