import type { DataSource } from 'typeorm';
import {
  AssistantInput,
  AssistantPatch,
  AssistantView,
  ChatPersona,
  createAssistant,
  deleteAssistant,
  findChatPersona,
  listMarketplaceAssistants,
  listOwnAssistants,
  listSystemAssistants,
  OwnAssistantView,
  publishAssistant,
  updateAssistant,
} from './assistants';

/** Assistants for the doors: built-in, the caller's own, and the marketplace. */
export class AssistantService {
  constructor(private readonly ds: DataSource) {}

  system(): Promise<AssistantView[]> {
    return listSystemAssistants(this.ds);
  }

  own(userId: number): Promise<OwnAssistantView[]> {
    return listOwnAssistants(this.ds, userId);
  }

  /** An assistant to chat as: built-in, own or published, with its instructions. @throws NotFoundError */
  persona(userId: number, id: number): Promise<ChatPersona> {
    return findChatPersona(this.ds, userId, id);
  }

  marketplace(): Promise<AssistantView[]> {
    return listMarketplaceAssistants(this.ds);
  }

  create(userId: number, input: AssistantInput): Promise<OwnAssistantView> {
    return createAssistant(this.ds, userId, input);
  }

  update(userId: number, id: number, patch: AssistantPatch): Promise<OwnAssistantView> {
    return updateAssistant(this.ds, userId, id, patch);
  }

  publish(userId: number, id: number): Promise<OwnAssistantView> {
    return publishAssistant(this.ds, userId, id);
  }

  delete(userId: number, id: number): Promise<void> {
    return deleteAssistant(this.ds, userId, id);
  }
}
