import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stored Responses (`/v1/responses` with `store`, the default): the response object as answered, the input items it
 * was generated from (the chain before it included, each with its id), and for a background response the request to
 * run, its run state and the key it runs as. Kept for the account's plan retention (`expires_at`), deleted with the
 * account.
 */
export class StoredResponses1764340000000 implements MigrationInterface {
  name = 'StoredResponses1764340000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE stored_responses (
        id text PRIMARY KEY,
        user_id integer NOT NULL,
        api_key_id integer,
        status text NOT NULL,
        background boolean NOT NULL DEFAULT false,
        response jsonb NOT NULL,
        input_items jsonb NOT NULL,
        request jsonb,
        cancel_requested boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz
      )`,
    );
    await q.query(
      `ALTER TABLE stored_responses ADD CONSTRAINT "FK_82c91e71e1184a87297cf3407f3" FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(`CREATE INDEX stored_responses_user_idx ON stored_responses (user_id, created_at)`);
    await q.query(`CREATE INDEX stored_responses_expiry_idx ON stored_responses (expires_at) WHERE expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE stored_responses`);
  }
}
