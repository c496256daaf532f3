import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import { UserEntity } from './user.entity';

@Entity('user_settings')
export class UserSettingsEntity {
  @PrimaryColumn({ name: 'user_id', type: 'integer' })
  userId: number;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id' })
  user?: UserEntity;

  @Column({ type: 'text', default: 'en' })
  language: string;

  @Column({ name: 'image_format', type: 'text', default: 'webp' })
  imageFormat: string;

  @Column({ name: 'notifications_enabled', type: 'boolean', default: true })
  notificationsEnabled: boolean;

  @Column({ name: 'default_image_size', type: 'text', default: '1024x1024' })
  defaultImageSize: string;

  /** Bot preferences: the text model chat uses, and the like. */
  @Column({ name: 'chat_model', type: 'text', nullable: true })
  chatModel: string | null;

  /** Bot: `transcribe` a voice message, or `answer` it with the chat model. */
  @Column({ name: 'voice_mode', type: 'text', default: 'transcribe' })
  voiceMode: string;

  /** Bot: a chat answer is also spoken back as a voice message (billed as speech synthesis). */
  @Column({ name: 'voice_answers', type: 'boolean', default: false })
  voiceAnswers: boolean;

  /** Bot: the speech model of voice answers; null for the plan's default. */
  @Column({ name: 'tts_model', type: 'text', nullable: true })
  ttsModel: string | null;

  /** Bot: the model and options each media category last ran with, for one-step commands (`/image <prompt>`). */
  @Column({ name: 'media_presets', type: 'jsonb', default: {} })
  mediaPresets: Record<string, unknown>;

  /** Bot: a one-step run up to this price (tokens) starts without asking; 0 asks every time. */
  @Column({ name: 'confirm_above', type: 'integer', default: 0 })
  confirmAbove: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
