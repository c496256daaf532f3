import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Money in: articles (what can be bought; operators may edit the rows), orders with their provider references,
 * saved carrier payment methods, and the paid-through date of bought plans (the plan lapses to Starter after it).
 * Prices: `price_minor` in kopecks (RUB), `stars` in Telegram Stars.
 */
export class Payments1763800200000 implements MigrationInterface {
  name = 'Payments1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "articles" ("id" text NOT NULL, "kind" text NOT NULL, "title" text NOT NULL, "tokens" integer, "plan_slug" text, "period_days" integer, "price_minor" integer NOT NULL, "currency" text NOT NULL DEFAULT 'RUB', "stars" integer NOT NULL, "active" boolean NOT NULL DEFAULT true, "sort" integer NOT NULL DEFAULT 0, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `CONSTRAINT "articles_kind" CHECK (("kind" = 'tokens' AND "tokens" > 0 AND "plan_slug" IS NULL AND "period_days" IS NULL) OR ("kind" = 'plan' AND "tokens" IS NULL AND "plan_slug" IS NOT NULL AND "period_days" > 0)), ` +
        `CONSTRAINT "articles_prices" CHECK ("price_minor" > 0 AND "stars" > 0), CONSTRAINT "PK_articles" PRIMARY KEY ("id"))`,
    );
    await q.query(
      `ALTER TABLE "articles" ADD CONSTRAINT "FK_articles_plan" FOREIGN KEY ("plan_slug") REFERENCES "plans"("slug") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await q.query(
      `CREATE TABLE "payment_orders" ("id" SERIAL NOT NULL, "reference" text NOT NULL, "user_id" integer NOT NULL, "article_id" text NOT NULL, "kind" text NOT NULL, "tokens" integer, "plan_slug" text, "period_days" integer, "provider" text NOT NULL, "amount_minor" integer NOT NULL, "currency" text NOT NULL, "status" text NOT NULL DEFAULT 'pending', ` +
        `"provider_payment_id" text, "provider_charge_id" text, "parent_order_id" integer, "is_subscription" boolean NOT NULL DEFAULT false, "subscription_canceled_at" TIMESTAMP WITH TIME ZONE, "save_payment_method" boolean NOT NULL DEFAULT false, "confirmation_url" text, ` +
        `"refund_requested_at" TIMESTAMP WITH TIME ZONE, "refund_tokens_taken" integer, "refund_tokens_spent" integer, "refund_error" text, ` +
        `"expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, "paid_at" TIMESTAMP WITH TIME ZONE, "fulfilled_at" TIMESTAMP WITH TIME ZONE, "canceled_at" TIMESTAMP WITH TIME ZONE, "refunded_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), ` +
        `CONSTRAINT "payment_orders_status" CHECK ("status" IN ('pending', 'paid', 'fulfilled', 'canceled', 'expired', 'refunded')), ` +
        `CONSTRAINT "UQ_payment_orders_reference" UNIQUE ("reference"), CONSTRAINT "PK_payment_orders" PRIMARY KEY ("id"))`,
    );
    await q.query(`CREATE INDEX "payment_orders_user_idx" ON "payment_orders" ("user_id", "id")`);
    await q.query(`CREATE INDEX "payment_orders_pending_idx" ON "payment_orders" ("status", "expires_at")`);
    // One charge credits one order, once: a replayed notification or a second successful_payment hits these.
    await q.query(
      `CREATE UNIQUE INDEX "payment_orders_charge_idx" ON "payment_orders" ("provider", "provider_charge_id") WHERE "provider_charge_id" IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX "payment_orders_payment_idx" ON "payment_orders" ("provider", "provider_payment_id") WHERE "provider_payment_id" IS NOT NULL`,
    );
    await q.query(
      `ALTER TABLE "payment_orders" ADD CONSTRAINT "FK_payment_orders_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(
      `ALTER TABLE "payment_orders" ADD CONSTRAINT "FK_payment_orders_article" FOREIGN KEY ("article_id") REFERENCES "articles"("id") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    await q.query(
      `CREATE TABLE "saved_payment_methods" ("user_id" integer NOT NULL, "provider" text NOT NULL, "method_id" text NOT NULL, "title" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_saved_payment_methods" PRIMARY KEY ("user_id", "provider"))`,
    );
    await q.query(
      `ALTER TABLE "saved_payment_methods" ADD CONSTRAINT "FK_saved_payment_methods_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await q.query(`ALTER TABLE "users" ADD "plan_paid_through" TIMESTAMP WITH TIME ZONE`);
    await q.query(`
      INSERT INTO articles (id, kind, title, tokens, plan_slug, period_days, price_minor, stars, sort) VALUES
        ('tokens-100',     'tokens', '100 tokens',        100, NULL,    NULL,  14900,   75, 10),
        ('tokens-500',     'tokens', '500 tokens',        500, NULL,    NULL,  59000,  300, 20),
        ('tokens-2000',    'tokens', '2,000 tokens',     2000, NULL,    NULL, 199000, 1000, 30),
        ('tokens-10000',   'tokens', '10,000 tokens',   10000, NULL,    NULL, 799000, 4000, 40),
        ('plan-basic-month', 'plan', 'Basic, 30 days',   NULL, 'basic', 30,    49000,  250, 50),
        ('plan-pro-month',   'plan', 'Pro, 30 days',     NULL, 'pro',   30,    99000,  500, 60),
        ('plan-vip-month',   'plan', 'VIP, 30 days',     NULL, 'vip',   30,   199000, 1000, 70),
        ('plan-elite-month', 'plan', 'Elite, 30 days',   NULL, 'elite', 30,   499000, 2500, 80)
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "users" DROP COLUMN "plan_paid_through"`);
    await q.query(`DROP TABLE IF EXISTS "saved_payment_methods" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "payment_orders" CASCADE`);
    await q.query(`DROP TABLE IF EXISTS "articles" CASCADE`);
  }
}
