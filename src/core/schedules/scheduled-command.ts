// What a schedule runs, as it is stored (`schedules.command`): a typed, versioned generate request. The model's
// rules apply at each run (a model retired meanwhile runs as its replacement), so the request is kept, not its
// normalised options. A new shape gets a new version and a migration that converts the stored rows.
import type { GenerateRequest } from '../catalog/params';

export const SCHEDULED_COMMAND_VERSION = 1;

/** Version 1: the request with its input images as URLs (a schedule holds no files). */
export interface ScheduledCommandV1 {
  version: 1;
  request: GenerateRequest;
}

/**
 * A stored command this build cannot read (written by a newer build, or damaged) is a fault of the installation,
 * not of the request: a plain Error (500 on the API, the schedule's `last_error` when it runs), never a DomainError.
 */
function unreadable(scheduleId: number, version: unknown): Error {
  return new Error(
    `schedule ${scheduleId} stores a command of version ${JSON.stringify(version)}; this build reads version ${SCHEDULED_COMMAND_VERSION} only`,
  );
}

export function toStoredCommand(request: GenerateRequest): ScheduledCommandV1 {
  return { version: SCHEDULED_COMMAND_VERSION, request };
}

/** The request a stored command holds. @throws Error for a version this build does not know */
export function readStoredCommand(scheduleId: number, stored: { version?: unknown; request?: unknown }): GenerateRequest {
  if (stored.version !== SCHEDULED_COMMAND_VERSION || typeof stored.request !== 'object' || stored.request === null) {
    throw unreadable(scheduleId, stored.version);
  }
  return (stored as ScheduledCommandV1).request;
}
