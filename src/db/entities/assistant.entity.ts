import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from './user.entity';

@Entity('assistants')
@Index('assistants_owner_idx', ['ownerId'])
export class AssistantEntity {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  /** null for built-in (system) assistants. */
  @Column({ name: 'owner_id', type: 'integer', nullable: true })
  ownerId: number | null;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'owner_id' })
  owner?: UserEntity;

  @Column({ type: 'text' })
  name: string;

  @Column({ type: 'text', default: '' })
  description: string;

  @Column({ name: 'model_slug', type: 'text' })
  modelSlug: string;

  @Column({ name: 'system_prompt', type: 'text', default: '' })
  systemPrompt: string;

  @Column({ name: 'is_public', type: 'boolean', default: false })
  isPublic: boolean;

  @Column({ name: 'is_system', type: 'boolean', default: false })
  isSystem: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
