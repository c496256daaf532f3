import { GrammyError, type Api } from 'grammy';
import { TelegramFileError } from '../errors';

export interface DownloadedFile {
  data: Buffer;
  /** The file's name on Telegram's side, e.g. `voice/file_3.oga`. */
  path: string;
}

export interface FileSource {
  api: Api;
  token: string;
  apiRoot: string;
  maxBytes: number;
}

/**
 * Downloads a file the user sent: `getFile`, then `<apiRoot>/file/bot<token>/<file_path>`. The bytes go to the
 * core directly (as a file of the command or an upload), so nothing depends on Telegram's URL being reachable later.
 */
export async function downloadTelegramFile(source: FileSource, fileId: string, knownSize?: number): Promise<DownloadedFile> {
  if (knownSize !== undefined && knownSize > source.maxBytes) throw new TelegramFileError('too_large');
  const file = await source.api.getFile(fileId).catch((err: unknown) => {
    // "file is too big" (over the Bot API's 20 MB) or an unknown/expired file id.
    if (err instanceof GrammyError && err.error_code === 400)
      throw new TelegramFileError(/too big/i.test(err.description) ? 'too_large' : 'unavailable');
    throw err;
  });
  if (file.file_size !== undefined && file.file_size > source.maxBytes) throw new TelegramFileError('too_large');
  if (!file.file_path) throw new TelegramFileError('unavailable');
  const url = `${source.apiRoot}/file/bot${source.token}/${file.file_path}`;
  const res = await fetch(url, { signal: AbortSignal.timeout(60_000) });
  if (!res.ok || !res.body) throw new TelegramFileError('unavailable');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res.body) {
    total += chunk.byteLength;
    if (total > source.maxBytes) throw new TelegramFileError('too_large');
    chunks.push(Buffer.from(chunk));
  }
  return { data: Buffer.concat(chunks), path: file.file_path };
}

/** `data:<mime>;base64,…`: a photo inside a chat message's content (vision), which is the chat wire format. */
export function toDataUri(data: Buffer, mime: string): string {
  return `data:${mime};base64,${data.toString('base64')}`;
}
