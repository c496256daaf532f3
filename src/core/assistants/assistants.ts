import { DataSource } from 'typeorm';
import { AssistantEntity } from '../../db/entities';
import { NotFoundError, QuotaExceededError } from '../accounts/errors';
import { findModel, ParamError } from '../catalog';

export const MAX_ASSISTANTS_PER_USER = 100;
const LIST_LIMIT = 200;

/** The spec's Assistant object. */
export interface AssistantView {
  id: number;
  name: string;
  description: string;
  model_slug: string;
  is_public: boolean;
}

/** The owner also sees the instructions of their own assistants. */
export interface OwnAssistantView extends AssistantView {
  system_prompt: string;
}

export interface AssistantInput {
  name: string;
  description?: string;
  modelSlug: string;
  systemPrompt?: string;
}

export interface AssistantPatch {
  name?: string;
  description?: string;
  modelSlug?: string;
  systemPrompt?: string;
  isPublic?: boolean;
}

export const toAssistantView = (a: AssistantEntity): AssistantView => ({
  id: a.id,
  name: a.name,
  description: a.description,
  model_slug: a.modelSlug,
  is_public: a.isPublic,
});

const toOwnView = (a: AssistantEntity): OwnAssistantView => ({ ...toAssistantView(a), system_prompt: a.systemPrompt });

/** Assistants chat, so their model must be a catalog text model. @throws ParamError */
function assertTextModel(slug: string): void {
  const model = findModel(slug);
  if (!model) throw new ParamError('model_slug', `Unknown model: ${slug}`);
  if (model.category !== 'text') throw new ParamError('model_slug', `${slug} is not a text model; assistants need a text model`);
}

export async function listSystemAssistants(ds: DataSource): Promise<AssistantView[]> {
  const rows = await ds.getRepository(AssistantEntity).find({ where: { isSystem: true }, order: { id: 'ASC' }, take: LIST_LIMIT });
  return rows.map(toAssistantView);
}

export async function listOwnAssistants(ds: DataSource, userId: number): Promise<OwnAssistantView[]> {
  const rows = await ds.getRepository(AssistantEntity).find({ where: { ownerId: userId }, order: { id: 'ASC' }, take: LIST_LIMIT });
  return rows.map(toOwnView);
}

/** What a chat needs to speak as an assistant. */
export interface ChatPersona {
  id: number;
  name: string;
  modelSlug: string;
  systemPrompt: string;
}

/**
 * An assistant the user may chat with (built-in, their own, or published), with its instructions.
 * @throws NotFoundError for anything else
 */
export async function findChatPersona(ds: DataSource, userId: number, id: number): Promise<ChatPersona> {
  const found = await ds.getRepository(AssistantEntity).findOne({
    where: [
      { id, isSystem: true },
      { id, ownerId: userId },
      { id, isPublic: true },
    ],
  });
  if (!found) throw new NotFoundError('Assistant');
  return { id: found.id, name: found.name, modelSlug: found.modelSlug, systemPrompt: found.systemPrompt };
}

/** Community assistants: published by users (built-in ones are listed by listSystemAssistants). */
export async function listMarketplaceAssistants(ds: DataSource): Promise<AssistantView[]> {
  const rows = await ds.getRepository(AssistantEntity).find({
    where: { isPublic: true, isSystem: false },
    order: { id: 'DESC' },
    take: LIST_LIMIT,
  });
  return rows.map(toAssistantView);
}

export async function createAssistant(ds: DataSource, userId: number, input: AssistantInput): Promise<OwnAssistantView> {
  assertTextModel(input.modelSlug);
  const repo = ds.getRepository(AssistantEntity);
  if ((await repo.countBy({ ownerId: userId })) >= MAX_ASSISTANTS_PER_USER) {
    throw new QuotaExceededError('assistants', MAX_ASSISTANTS_PER_USER);
  }
  const saved = await repo.save(
    repo.create({
      ownerId: userId,
      name: input.name,
      description: input.description ?? '',
      modelSlug: input.modelSlug,
      systemPrompt: input.systemPrompt ?? '',
      isPublic: false,
      isSystem: false,
    }),
  );
  return toOwnView(saved);
}

/** Someone else's (or a built-in) assistant is "not found", never "forbidden". */
async function findOwn(ds: DataSource, userId: number, id: number): Promise<AssistantEntity> {
  const found = await ds.getRepository(AssistantEntity).findOneBy({ id, ownerId: userId, isSystem: false });
  if (!found) throw new NotFoundError('Assistant');
  return found;
}

export async function updateAssistant(ds: DataSource, userId: number, id: number, patch: AssistantPatch): Promise<OwnAssistantView> {
  const assistant = await findOwn(ds, userId, id);
  if (patch.modelSlug !== undefined) {
    assertTextModel(patch.modelSlug);
    assistant.modelSlug = patch.modelSlug;
  }
  if (patch.name !== undefined) assistant.name = patch.name;
  if (patch.description !== undefined) assistant.description = patch.description;
  if (patch.systemPrompt !== undefined) assistant.systemPrompt = patch.systemPrompt;
  if (patch.isPublic !== undefined) assistant.isPublic = patch.isPublic;
  return toOwnView(await ds.getRepository(AssistantEntity).save(assistant));
}

export async function publishAssistant(ds: DataSource, userId: number, id: number): Promise<OwnAssistantView> {
  return updateAssistant(ds, userId, id, { isPublic: true });
}

export async function deleteAssistant(ds: DataSource, userId: number, id: number): Promise<void> {
  const res = await ds.getRepository(AssistantEntity).delete({ id, ownerId: userId, isSystem: false });
  if (!res.affected) throw new NotFoundError('Assistant');
}
