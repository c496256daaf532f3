import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** A Telegram Login Widget payload already used to sign in (by its hash), kept while it would still be accepted. */
@Entity('used_login_widgets')
@Index('used_login_widgets_expires_idx', ['expiresAt'])
export class UsedLoginWidgetEntity {
  @PrimaryColumn({ type: 'text' })
  hash: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
