import { createDataSource } from './data-source';

/** For the TypeORM CLI (`npm run typeorm -- migration:show`); needs DATABASE_URL. */
export default createDataSource(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', { poolSize: 2 });
