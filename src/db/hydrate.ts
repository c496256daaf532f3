import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';

/** An entity from a raw row (column names as in the table, values as the pg driver parsed them). */
export function entityFromRow<T extends ObjectLiteral>(ds: DataSource, target: EntityTarget<T>, row: Record<string, unknown>): T {
  const repo = ds.getRepository(target);
  const entity = repo.create();
  for (const column of repo.metadata.columns) {
    if (column.databaseName in row) column.setEntityValue(entity, row[column.databaseName]);
  }
  return entity;
}
