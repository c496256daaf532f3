import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An identity-provider ID token already used to sign in (the hash of its issuer and `jti`, or of the whole token
 * without one), kept while the token would still be accepted.
 */
@Entity('used_id_tokens')
@Index('used_id_tokens_expires_idx', ['expiresAt'])
export class UsedIdTokenEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_used_id_tokens' })
  hash: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
