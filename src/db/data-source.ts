import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { migrations } from '../../migrations';
import { entities } from './entities';

export function createDataSource(url: string, options: { poolSize?: number; applicationName?: string } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    poolSize: options.poolSize ?? 20,
    applicationName: options.applicationName ?? 'nebula-gen',
  });
}
